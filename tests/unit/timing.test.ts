import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sleep, within } from '../../src/lib/timing';

describe('timing', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('within gives the work when it settles in time and leaves no timer behind', async () => {
    const result = within(Promise.resolve('done'), 1000, 'late');
    await expect(result).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('within gives `late` when the work takes longer, and passes on a rejection that comes first', async () => {
    const never = new Promise<string>(() => undefined);
    const result = within(never, 1000, 'late');
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void result.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe('late');
    await expect(within(Promise.reject(new Error('boom')), 1000, 'late')).rejects.toThrow('boom');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sleep resolves after its time and rejects with the reason when aborted, clearing its timer', async () => {
    const slept = sleep(500);
    await vi.advanceTimersByTimeAsync(500);
    await expect(slept).resolves.toBeUndefined();
    const controller = new AbortController();
    const stopped = sleep(500, controller.signal);
    controller.abort(new Error('stopped'));
    await expect(stopped).rejects.toThrow('stopped');
    expect(vi.getTimerCount()).toBe(0);
    await expect(sleep(10, controller.signal)).rejects.toThrow('stopped');
  });
});
