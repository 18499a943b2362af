import type { SessionStore } from '../storage/session-store';
import type { SessionHost } from './host';
import type { WorkerPool } from './pool';
import { quoteName } from '../quote-name';
import { said, SaidError } from '../i18n/said';

/**
 * What changes a session's workspace or variables. A session with a live worker is changed
 * through it, so Python sees the change and the worker's file system stays a true cache of
 * storage; a sleeping one is changed in storage alone. The manager picks one of the two
 * per call (`SessionManager.ops`) instead of making the choice in every method.
 */
export interface SessionOps {
  writeFile(path: string, data: Uint8Array): Promise<void>;
  deleteFile(path: string): Promise<void>;
  renameFile(from: string, to: string): Promise<void>;
  /** Forgets every variable; files, history and session variables stay. */
  clear(): Promise<void>;
}

/** Through the session's live worker, queued behind its runs. */
export class LiveOps implements SessionOps {
  constructor(
    private readonly host: SessionHost,
    private readonly pool: WorkerPool,
  ) {}

  writeFile(path: string, data: Uint8Array): Promise<void> {
    return this.pool.use(this.host, (h) => h.call((api) => api.writeFile(path, data)));
  }

  deleteFile(path: string): Promise<void> {
    return this.pool.use(this.host, (h) => h.call((api) => api.deleteFile(path)));
  }

  renameFile(from: string, to: string): Promise<void> {
    return this.pool.use(this.host, (h) => h.call((api) => api.renameFile(from, to)));
  }

  clear(): Promise<void> {
    return this.pool.use(this.host, (h) => h.call((api) => api.clear()));
  }
}

/** Straight in storage, for a session without a live worker; its next start reads the result. */
export class StoredOps implements SessionOps {
  constructor(private readonly store: SessionStore) {}

  writeFile(path: string, data: Uint8Array): Promise<void> {
    return this.store.commit({ files: { put: [{ path, data, modifiedAt: Date.now() }] } });
  }

  async deleteFile(path: string): Promise<void> {
    await this.existing(path);
    await this.store.commit({ files: { delete: [path] } });
  }

  async renameFile(from: string, to: string): Promise<void> {
    const data = await this.existing(from);
    if (await this.store.readFile(to)) throw new SaidError(said('libb_file_exists', { name: quoteName(to) }));
    await this.store.commit({ files: { put: [{ path: to, data, modifiedAt: Date.now() }], delete: [from] } });
  }

  clear(): Promise<void> {
    return this.store.clear();
  }

  private async existing(path: string): Promise<Uint8Array> {
    const data = await this.store.readFile(path);
    if (!data) throw new SaidError(said('libb_no_file', { name: quoteName(path) }));
    return data;
  }
}
