import { said, SaidError, type Said } from '../i18n/said';
import { loadLocalModel, type LoadProgress, type LocalModel } from './client';
import { ensureModelRuntime } from './runtime';
import { openKeptModel } from './store';

/** A model not asked anything for this long is unloaded, and its memory goes back to the browser. */
export const IDLE_UNLOAD_MS = 10 * 60_000;

export type LocalModelState =
  | { state: 'none' }
  | { state: 'loading'; id: string; progress?: LoadProgress }
  | { state: 'ready'; id: string; model: LocalModel }
  /** `error`: said when PyTabs wrote it, else the words it came with. */
  | { state: 'failed'; id: string; error: string | Said };

/**
 * The page's one local model: loaded from the kept file on first use, shared by every session's
 * rounds (one model per page, as the issue and the memory of a laptop want), unloaded after a
 * while unused or on request. It holds no session's data: requests carry their own messages.
 */
export class LocalModelHost {
  private status: LocalModelState = { state: 'none' };
  private loading: { id: string; promise: Promise<LocalModel>; tell(onLoading?: (name: string, bytes: number) => void): void } | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<(state: LocalModelState) => void>();

  constructor(private readonly idleMs = IDLE_UNLOAD_MS) {}

  get state(): LocalModelState {
    return this.status;
  }

  /** Called with the state now and at each change; returns the unsubscribe. */
  subscribe(listener: (state: LocalModelState) => void): () => void {
    this.listeners.add(listener);
    listener(this.status);
    return () => this.listeners.delete(listener);
  }

  /** The kept model `id`, loaded when it is not (another loaded one is unloaded first). */
  async use(id: string, onLoading?: (name: string, bytes: number) => void): Promise<LocalModel> {
    this.touch();
    // A model ended by another load on this page (window.pytabs.loadLocalModel) or by its worker's failure is loaded again.
    if (this.status.state === 'ready' && this.status.id === id && !this.status.model.unloaded) return this.status.model;
    if (this.loading?.id === id) {
      this.loading.tell(onLoading);
      return this.loading.promise;
    }
    // Each caller that waits for the load hears what loads (a question sent while the load that
    // writing it started is under way says so in its round), as soon as that is known.
    const waiting = new Set<(name: string, bytes: number) => void>();
    let known: [string, number] | null = null;
    const tell = (listener?: (name: string, bytes: number) => void) => {
      if (listener && known) listener(...known);
      else if (listener) waiting.add(listener);
    };
    tell(onLoading);
    const promise = this.load(id, (name, bytes) => {
      known = [name, bytes];
      for (const listener of waiting) listener(name, bytes);
    });
    this.loading = { id, promise, tell };
    try {
      return await promise;
    } finally {
      if (this.loading?.promise === promise) this.loading = null;
    }
  }

  async unload(): Promise<void> {
    clearTimeout(this.timer);
    const current = this.status;
    this.set({ state: 'none' });
    if (current.state === 'ready') await current.model.unload();
  }

  private async load(id: string, onLoading?: (name: string, bytes: number) => void): Promise<LocalModel> {
    if (this.status.state === 'ready') await this.status.model.unload();
    this.set({ state: 'loading', id });
    try {
      const kept = await openKeptModel(id);
      if (!kept) throw new SaidError(said('chat_model_gone'));
      await ensureModelRuntime();
      onLoading?.(kept.meta.name, kept.meta.bytes);
      const model = await loadLocalModel({ kind: 'blob', blob: kept.file }, { onProgress: (progress) => this.status.state === 'loading' && this.set({ state: 'loading', id, progress }) });
      // Unloaded or switched while it loaded: this one is not wanted any more.
      if (this.status.state !== 'loading' || this.status.id !== id) {
        await model.unload();
        throw new SaidError(said('chat_model_unloaded_loading'));
      }
      this.set({ state: 'ready', id, model });
      this.touch();
      return model;
    } catch (error) {
      if (this.status.state === 'loading' && this.status.id === id) this.set({ state: 'failed', id, error: error instanceof SaidError ? error.said : error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  /** Restarts the idle clock; at its end a model that is not answering is unloaded. */
  private touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const current = this.status;
      if (current.state !== 'ready') return;
      if (current.model.busy) this.touch();
      else void this.unload();
    }, this.idleMs);
  }

  private set(state: LocalModelState): void {
    this.status = state;
    for (const listener of this.listeners) listener(state);
  }
}

/** The page's host: one model per page. */
export const localModelHost = new LocalModelHost();
