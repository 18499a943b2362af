import { test, expect } from './fixtures';
import { FIRST_RUN } from './person';
import { arrows, ENGLISH_STEP_NAMES } from './step-view';

// A step-through's record through the page's API (window.pytabs.trace) in Chromium, Firefox
// ESR and WebKitGTK, on a plain host and on one with the project's headers: input() is
// answered while it records, and Stop ends it (by interrupt where the worker has shared memory:
// Chromium and Firefox with the headers; elsewhere the worker restarts, WebKitGTK's always, and
// a restarted run has no record: docs/api.md says so).

interface Recorded {
  status: string;
  lines: number[];
  aliased: boolean;
  items: unknown;
  stdout: string;
  how: string;
  stoppedSteps: number | null;
  after: string | undefined;
}

test('pytabs.trace: a shared list, input() answered while recording, and Stop', async ({ person, host, engineName, hostHeaders }) => {
  await person.open(host.url);
  await person.send('ready = True');
  await person.expectText(person.reply(1), 'Done in', FIRST_RUN);
  const out = (await person.page.evaluate(async () => {
    type Api = {
      createSession(name: string): Promise<{ id: string }>;
      trace(id: string, code: string, options: object): Promise<{ status: string; trace?: { steps: { line: number }[]; stdout: string } }>;
      pendingInput(id: string): { id: string } | null;
      answerInput(id: string, request: string, line: string): void;
      stop(id: string): Promise<string>;
      run(id: string, code: string): Promise<{ result?: Record<string, string> }>;
    };
    type Lib = { traceStep(trace: object, i: number): { frames: { variables: [string, unknown][] }[]; objects: Map<number, { items?: unknown }>; stdout: string } };
    const api = (window as unknown as { pytabs: Api }).pytabs;
    const lib = (window as unknown as { pytabsLib: Lib }).pytabsLib;
    const s = await api.createSession('Steps');
    const running = api.trace(s.id, "a = [1, 2]\nb = a\nb.append(int(input('How many? ')))\nz = len(a)", { maxSteps: 1000 });
    while (!api.pendingInput(s.id)) await new Promise((resolve) => setTimeout(resolve, 50));
    api.answerInput(s.id, api.pendingInput(s.id)!.id, '7');
    const result = await running;
    const trace = result.trace!;
    const last = lib.traceStep(trace, trace.steps.length - 1);
    const vars = Object.fromEntries(last.frames[0].variables) as Record<string, { ref: number }>;
    const stopping = api.trace(s.id, 'n = 0\nwhile True:\n    n += 1', { maxSteps: 1_000_000 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const how = await api.stop(s.id);
    const stopped = await stopping;
    const after = await api.run(s.id, 'a');
    return {
      status: result.status,
      lines: trace.steps.map((step) => step.line),
      aliased: vars.a.ref === vars.b.ref,
      items: last.objects.get(vars.a.ref)?.items,
      stdout: last.stdout,
      how,
      stoppedSteps: stopped.trace ? stopped.trace.steps.length : null,
      after: after.result?.['text/plain'],
    };
  })) as Recorded;
  expect(out.status).toBe('ok');
  expect(out.lines).toEqual([0, 1, 2, 3, 4, 4]);
  expect(out.aliased).toBe(true);
  expect(out.items).toEqual([['int', '1'], ['int', '2'], ['int', '7']]);
  expect(out.stdout).toBe('How many? 7\n');
  if (hostHeaders === 'project' && engineName !== 'webkit') {
    expect(out.how).toBe('interrupted');
    expect(out.stoppedSteps).toBeGreaterThan(10);
  } else {
    expect(out.how).toBe('restarted');
    expect(out.stoppedSteps).toBeNull();
  }
  // The first run's values were saved as Run saves them: a restart brings them back too.
  expect(out.after).toBe('[1, 2, 7]');
});

test('Step through in the chat: one list behind two names, back three steps by button and keys, each step said', async ({ person, host }) => {
  await person.open(host.url);
  await person.fill({ role: 'textbox', name: 'Message' }, 'a = [1, 2]\nb = a\nb.append(3)\ntotal = len(a)\ndone = True');
  await person.click({ role: 'button', name: 'Step through' });
  const view = { role: 'group', name: 'Step-through', within: person.reply(1) };
  await person.find(view, { timeout: FIRST_RUN });
  const slider = { role: 'slider', name: 'Step', within: view };
  const said = { role: 'status', within: view };
  await person.click({ role: 'button', name: 'Last', within: view });
  expect(await person.text(slider)).toBe('6');
  expect(await person.count({ role: 'button', name: '→ list #1', within: { role: 'group', name: '<module>', within: view } })).toBe(2);
  expect(await person.count({ role: 'group', name: 'list #1', within: view })).toBe(1);
  await person.click({ role: 'button', name: 'Back', within: view });
  await person.expectText(said, 'Line 4: total is 3');
  // Keys pressed on a control of the view move through the steps too.
  const back = await person.find({ role: 'button', name: 'Back', within: view });
  await back.press('ArrowUp');
  await person.expectText(said, 'Line 3: list #1 now holds 1, 2, 3');
  await back.press('ArrowUp');
  await person.expectText(said, 'Line 2: b is list #1');
  expect(await person.text(slider)).toBe('3');

  // Two arrows, one from each name, both ending on the one list's box (drawn in the next frame),
  // running right from the frame to the list beside it.
  await expect.poll(() => arrows(person, ENGLISH_STEP_NAMES), { timeout: 10_000 }).toEqual({ arrows: 2, fromRefs: [1, 1], onTheList: true, leftward: false, listLeftOfFrame: false });

  // Line 4, picked by its number: the next step about to run it, then none.
  await person.click({ role: 'button', name: 'Line 4', within: view });
  await person.click({ role: 'button', name: 'Next time line 4 runs', within: view });
  await person.expectText(said, 'Line 3: list #1 now holds 1, 2, 3');
  expect(await person.text(slider)).toBe('4');
  await person.click({ role: 'button', name: 'Next time line 4 runs', within: view });
  await person.expectText(said, 'Line 4 does not run again after this step');
  expect(await person.text(slider)).toBe('4');
});
