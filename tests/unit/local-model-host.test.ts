import { tellInEnglish, type Said } from '../../src/lib/i18n/said';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LocalModel } from '../../src/lib/local-model/client';

// The page's model host (one model per page, loaded from the kept file on first use, unloaded
// after a while unused). Its worker needs a browser (tests/e2e/local-model.spec.ts runs it), so
// here the loader and the kept files are stand-ins that count what the host asks of them.

const loads: string[] = [];
const models: (LocalModel & { unloads: number; inFlight: boolean })[] = [];
let kept = new Set(['a', 'b']);

class StandIn {
  unloads = 0;
  inFlight = false;
  constructor(readonly name: string) {}
  get info() {
    return { name: this.name };
  }
  get busy() {
    return this.inFlight;
  }
  get unloaded() {
    return this.unloads > 0;
  }
  async unload() {
    this.unloads++;
  }
}

vi.mock('../../src/lib/local-model/store', () => ({
  openKeptModel: async (id: string) => (kept.has(id) ? { meta: { id, name: `model ${id}`, bytes: 10 }, file: new Blob([id]) } : null),
}));
vi.mock('../../src/lib/local-model/client', () => ({
  loadLocalModel: async (source: { blob: Blob }) => {
    const id = await source.blob.text();
    loads.push(id);
    const model = new StandIn(id) as unknown as LocalModel & StandIn;
    models.push(model);
    return model;
  },
}));

const { LocalModelHost } = await import('../../src/lib/local-model/host');

beforeEach(() => {
  vi.useFakeTimers();
  loads.length = 0;
  models.length = 0;
  kept = new Set(['a', 'b']);
});
afterEach(() => vi.useRealTimers());

describe('LocalModelHost', () => {
  it('loads once, shares the model, unloads it after the idle time unless it is answering', async () => {
    const host = new LocalModelHost(1000);
    const states: string[] = [];
    host.subscribe((s) => states.push(s.state));
    const [one, two] = await Promise.all([host.use('a'), host.use('a')]);
    expect(one).toBe(two);
    expect(loads).toEqual(['a']);
    // Busy when the time is up: kept, and unloaded after the next idle time.
    models[0].inFlight = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(models[0].unloads).toBe(0);
    models[0].inFlight = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(models[0].unloads).toBe(1);
    expect(host.state.state).toBe('none');
    expect(states).toEqual(['none', 'loading', 'ready', 'none']);
    // Asked again: loaded again.
    await host.use('a');
    expect(loads).toEqual(['a', 'a']);
  });

  it('every caller that waits for a load hears what loads, also one that came after it began', async () => {
    const host = new LocalModelHost(60_000);
    const heard: string[] = [];
    const first = host.use('a', (name, bytes) => heard.push(`first: ${name}, ${bytes}`));
    await Promise.resolve();
    const second = host.use('a', (name, bytes) => heard.push(`second: ${name}, ${bytes}`));
    await Promise.all([first, second]);
    expect(loads).toEqual(['a']);
    expect(heard.sort()).toEqual(['first: model a, 10', 'second: model a, 10']);
    // Loaded: nothing to hear.
    await host.use('a', (name) => heard.push(`third: ${name}`));
    expect(heard).toHaveLength(2);
  });

  it('one model per page: another one unloads the first; one ended elsewhere is loaded again', async () => {
    const host = new LocalModelHost(60_000);
    const a = await host.use('a');
    await host.use('b');
    expect(models[0].unloads).toBe(1);
    expect(loads).toEqual(['a', 'b']);
    await models[1].unload();
    const again = await host.use('b');
    expect(again).not.toBe(a);
    expect(loads).toEqual(['a', 'b', 'b']);
  });

  it('a kept file that is gone fails with what to do, and the state says so', async () => {
    const host = new LocalModelHost(60_000);
    kept.delete('a');
    await expect(host.use('a')).rejects.toThrow('This model is no longer kept in this browser');
    expect(host.state).toMatchObject({ state: 'failed', id: 'a', error: { key: 'chat_model_gone' } });
    expect(tellInEnglish((host.state as { error: Said }).error)).toContain('add it again in Settings → Assistant');
  });
});
