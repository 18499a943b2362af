import { describe, it, expect, beforeAll } from 'vitest';
import { loadPyodide } from 'pyodide';
import { WorkerSession } from '../../workers/runtime/session';

// An assignment's checks (workers/python/pytabs/checks.py) through the worker's runCheck, on real Pyodide.

const limits = { variableBytes: 10 * 1024 * 1024, sessionBytes: 100 * 1024 * 1024 };

const CHECKS = `
def check_total():
    "total is the sum of column n"
    assert total == 7654321, "total should be the sum of column n"

def check_mean():
    assert mean(rows) == 2, "mean(rows) should be 2"

def check_no_side_effects():
    rows.append(99)
    bump()
    global total
    total = -1
    assert False, "changed everything"

def check_prints():
    print("x" * 5000)

def check_divides():
    1 / 0
`;

describe('runCheck', () => {
  let s: WorkerSession;
  const value = async (expr: string) => (await s.run(expr, undefined, {}, limits)).result?.['text/plain'];

  beforeAll(async () => {
    s = new WorkerSession(await loadPyodide(), null);
    await s.start();
    const r = await s.run(
      'total = 7654321\nrows = [1, 2, 3]\ncalls = 0\ndef mean(xs):\n    return sum(xs) / len(xs)\ndef bump():\n    global calls\n    calls += 1',
      undefined,
      {},
      limits,
    );
    expect(r.status).toBe('ok');
  });

  it('passes a check with its docstring as the message, and fails one with its assert message', async () => {
    expect(await s.runCheck(CHECKS, 'check_total', 1000)).toEqual({
      name: 'check_total',
      passed: true,
      message: 'total is the sum of column n',
      error: null,
      output: '',
    });
    await s.run('total = 1', undefined, {}, limits);
    const failed = await s.runCheck(CHECKS, 'check_total', 1000);
    expect(failed).toMatchObject({ passed: false, message: 'total should be the sum of column n', error: null });
    await s.run('total = 7654321', undefined, {}, limits);
  });

  it("calls the student's own functions", async () => {
    expect(await s.runCheck(CHECKS, 'check_mean', 1000)).toMatchObject({ passed: true });
  });

  it("leaves the student's variables as they were, whatever the check does to its copy", async () => {
    const outcome = await s.runCheck(CHECKS, 'check_no_side_effects', 1000);
    expect(outcome).toMatchObject({ passed: false, message: 'changed everything' });
    expect(await value('rows')).toBe('[1, 2, 3]');
    expect(await value('calls')).toBe('0');
    expect(await value('total')).toBe('7654321');
  });

  it('names the error a check raised, and cuts what it prints', async () => {
    expect(await s.runCheck(CHECKS, 'check_divides', 1000)).toMatchObject({
      passed: false,
      error: 'ZeroDivisionError',
      message: { key: 'asg_raised', params: { error: 'ZeroDivisionError', detail: 'division by zero' } },
    });
    const printed = await s.runCheck(CHECKS, 'check_prints', 100);
    expect(printed.passed).toBe(true);
    expect(printed.output).toBe(`${'x'.repeat(100)}\n… output cut at 100 characters`);
  });

  it('fails a check the source does not define, and a source that does not parse', async () => {
    expect(await s.runCheck(CHECKS, 'check_missing', 1000)).toMatchObject({ passed: false, error: 'NameError' });
    expect(await s.runCheck('def check_a(:\n  pass', 'check_a', 1000)).toMatchObject({ passed: false, error: 'SyntaxError' });
  });

  it('never forwards output nor commits: the next run changes nothing it did not itself', async () => {
    const r = await s.run('rows', undefined, {}, limits);
    expect(r.result?.['text/plain']).toBe('[1, 2, 3]');
    expect(r.filesChanged).toEqual([]);
  });
});
