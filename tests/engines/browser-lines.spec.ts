import { test, expect } from './fixtures';
import { FIRST_RUN } from './person';

// Settings → This browser, per engine and host: the paths the app takes, each decided by
// detecting the capability. docs/engines.md's table of them is this table.
// JSPI: null where it depends on the version (Firefox ESR 140 has none, 153 has it); the line
// must then say what the page itself finds.
const EXPECTED: Record<string, { stop: string; jspi: boolean | null; persist: string }> = {
  'chromium-plain': { stop: 'Stop: restarts from the last saved state', jspi: true, persist: 'can ask' },
  'chromium-project': { stop: 'Stop: interrupts', jspi: true, persist: 'can ask' },
  'firefox-plain': { stop: 'Stop: restarts from the last saved state', jspi: null, persist: 'can ask' },
  'firefox-project': { stop: 'Stop: interrupts', jspi: null, persist: 'can ask' },
  'webkit-plain': { stop: 'Stop: restarts from the last saved state', jspi: false, persist: 'cannot ask' },
  'webkit-project': { stop: 'Stop: restarts from the last saved state', jspi: false, persist: 'cannot ask' },
};

test('Settings → This browser names the paths this engine takes; run_sync is out of reach with JSPI or without', async ({ person, host }) => {
  const expected = EXPECTED[test.info().project.name];
  await person.open(host.url);
  await person.send(['import asyncio', 'from pyodide.ffi import run_sync', 'async def later():', '    await asyncio.sleep(0)', "    return 'resumed'", 'print(run_sync(later()))'].join('\n'));
  await person.expectText(person.reply(1), 'Failed after', FIRST_RUN);
  expect(await person.text(person.reply(1))).toContain('WebAssembly stack switching not supported');
  await person.send('await asyncio.sleep(0)\nawait later()');
  await person.expectText(person.reply(2), "'resumed'");
  await person.click({ role: 'button', name: 'Settings' });
  const paths = { role: 'region', name: 'This browser' };
  await person.expectText(paths, expected.stop);
  const jspi = expected.jspi ?? (await person.page.evaluate(() => typeof (WebAssembly as { Suspending?: unknown }).Suspending === 'function'));
  await person.expectText(paths, `Python stack switching (JSPI): ${jspi ? 'yes' : 'no (as in Safari)'}, not needed by PyTabs`);
  await person.expectText(paths, 'Downloads decoded as they stream: yes');
  await person.expectText(paths, 'One tab per session (Web Locks): yes');
  await person.expectText(paths, 'Other tabs told of changes: at once');
  await person.expectText(paths, `Keep data on this device: ${expected.persist}`);
  // The local model: threads where the page may share memory, the compatible build without JSPI and Memory64.
  const isolated = await person.page.evaluate(() => crossOriginIsolated);
  const shared = expected.stop === 'Stop: interrupts';
  const threads = !isolated ? 'with one thread (the page is not cross-origin isolated)' : shared ? 'with up to 4 threads' : 'with one thread (this browser gives the page no shared memory)';
  // None of these engines offers a GPU through WebGPU here (no GPU, and Chromium runs with --disable-gpu).
  await person.expectText(paths, `A model in this browser: yes, on the CPU (no GPU through WebGPU here), ${threads}${jspi ? '' : ', in the slower compatible build'}`);
});
