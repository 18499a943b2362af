import { describe, expect, it } from 'vitest';
import type { SessionHost } from '../../src/lib/sessions/host';
import { WorkerPool } from '../../src/lib/sessions/pool';

/** The part of a SessionHost the pool looks at: whether it is live, running or starting, and terminate. */
class FakeHost {
  isLive = false;
  isRunning = false;
  state: SessionHost['state'] = 'asleep';
  terminations = 0;
  constructor(readonly sessionId: string) {}
  terminate(): void {
    this.isLive = false;
    this.state = 'asleep';
    this.terminations++;
  }
  /** What a real host does on use: its worker is live afterwards. */
  async wake(): Promise<void> {
    this.isLive = true;
    this.state = 'ready';
  }
}

function setup(limit: number, count: number) {
  const hosts = Array.from({ length: count }, (_, i) => new FakeHost(`s${i}`));
  let max = limit;
  const pool = new WorkerPool(
    () => max,
    () => hosts as unknown as SessionHost[],
  );
  const use = (h: FakeHost, op: () => Promise<void> = () => h.wake()) =>
    pool.use(h as unknown as SessionHost, async () => {
      await h.wake();
      await op();
    });
  return { hosts, pool, use, setLimit: (n: number) => (max = n) };
}

const live = (hosts: FakeHost[]) => hosts.filter((h) => h.isLive).map((h) => h.sessionId);

describe('WorkerPool', () => {
  it('keeps at most the limit live, putting the least recently used to sleep', async () => {
    const { hosts, use } = setup(2, 4);
    await use(hosts[0]);
    await use(hosts[1]);
    await use(hosts[0]);
    await use(hosts[2]);
    expect(live(hosts)).toEqual(['s0', 's2']);
    await use(hosts[3]);
    expect(live(hosts)).toEqual(['s2', 's3']);
    // A sleeping session wakes on its next use, and another one sleeps for it.
    await use(hosts[1]);
    expect(live(hosts)).toEqual(['s1', 's3']);
  });

  it('never puts a session to sleep while something of it is in flight', async () => {
    const { hosts, use } = setup(1, 3);
    let finish!: () => void;
    const long = use(hosts[0], () => new Promise<void>((r) => (finish = r)));
    await Promise.resolve();
    hosts[0].isRunning = true;
    await use(hosts[1]);
    // Over the limit for as long as s0 runs: neither the running one nor the one in use is cut off.
    expect(live(hosts)).toEqual(['s0', 's1']);
    expect(hosts[0].terminations).toBe(0);
    hosts[0].isRunning = false;
    finish();
    await long;
    // Once s0 settles the limit holds again, and s0 is the least recently used.
    expect(live(hosts)).toEqual(['s1']);
  });

  it('does not cut off a worker that is still starting', async () => {
    const { hosts, use } = setup(1, 2);
    hosts[0].isLive = true;
    hosts[0].state = 'starting';
    await use(hosts[1]);
    expect(hosts[0].terminations).toBe(0);
    hosts[0].state = 'ready';
    await use(hosts[1]);
    expect(live(hosts)).toEqual(['s1']);
  });

  it('applies a lowered limit on the next use', async () => {
    const { hosts, use, setLimit } = setup(3, 3);
    for (const h of hosts) await use(h);
    expect(live(hosts)).toEqual(['s0', 's1', 's2']);
    setLimit(1);
    await use(hosts[2]);
    expect(live(hosts)).toEqual(['s2']);
  });
});
