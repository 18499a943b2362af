import type { SessionManager } from '../lib';
import {
  decodeShare,
  fetchPrepared,
  importSession,
  isShareLink,
  openPrepared,
  openShared,
  preparedLinkTarget,
  sessionFromShare,
  type ImportResult,
  type OpenedShare,
} from '../lib';
import type { Reporter } from './reporter';
import { errorText, m } from './i18n.svelte';
import type { SessionPortability } from './session-portability.svelte';
import { quoteName } from '../lib/quote-name';
import { isSaid, SaidError, type Said } from '../lib/i18n';

/** A prepared session's link waiting for the person's Open or Cancel. */
export interface PreparedAsk {
  url: string;
  host: string;
}

/** A shared link, read and checked, shown read-only until the person opens it or not. */
export interface SharedAsk {
  opened: OpenedShare;
  /** The session this link made earlier in this browser, if it is still here. */
  made: { id: string; name: string } | null;
}

/**
 * What this needs of the page's state. AppState owns an AppPortability and imports this
 * module; this module names only this shape, so the dependency runs one way.
 */
export interface PortabilityHost extends Reporter {
  refresh(): Promise<void>;
  select(id: string): void;
  viewOf(id: string): { readonly portable: Pick<SessionPortability, 'imported'> } | null;
}

/** Whether an import's error already names its file (the library says it as rt_cannot_import), in whatever language. */
function namesItsFile(error: unknown): boolean {
  return isSaid((error as { said?: unknown } | null)?.said) && (error as { said: Said }).said.key === 'rt_cannot_import';
}

/**
 * Sessions as files at the page's level: Import session (button or drop), a prepared
 * session's link and a shared link (Download all my work and Erase all data are in Settings'
 * DataSection).
 * Each new session is opened by its own id; what the import says goes to that session's view.
 */
export class AppPortability {
  /** The link being asked about, shown in a dialog. */
  prepared = $state.raw<PreparedAsk | null>(null);
  /** Fetching and importing the link's file, or writing a shared link's session. */
  opening = $state(false);
  /** The shared link being shown, in a dialog. */
  shared = $state.raw<SharedAsk | null>(null);

  constructor(
    private readonly app: PortabilityHost,
    private readonly manager: SessionManager,
  ) {}

  /** Opens a session just made from a file, by its id, and hands its view what the import said. */
  private async opened(result: ImportResult): Promise<void> {
    await this.app.refresh();
    this.app.select(result.sessionId);
    this.app.viewOf(result.sessionId)?.portable.imported(result);
    this.app.inform(m.notice_imported({ name: result.name, files: result.files.length, messages: result.rounds }));
    for (const warning of result.warnings) this.app.notify(new SaidError(warning));
  }

  /** Import session: each file (.pytabs.zip, .ipynb, .py) becomes a new session, which opens. */
  async importFiles(list: FileList | File[]): Promise<void> {
    // Taken now: the picker empties its FileList as soon as this returns to it.
    const files = Array.from(list);
    for (const file of files) {
      try {
        const data = new Uint8Array(await file.arrayBuffer());
        await this.opened(await importSession(this.manager, { name: file.name, data }));
      } catch (error) {
        // The library's errors name the file and say nothing was saved; a file the browser cannot read is said here.
        this.app.notify(namesItsFile(error) ? error : new Error(m.rt_cannot_import({ name: quoteName(file.name), error: errorText(error) })));
      }
    }
  }

  /** Reads a `#/open?from=<URL>` or `#/share?…` address before the router replaces it, to ask the person about it. */
  readLink(hash: string): void {
    if (isShareLink(hash)) {
      void this.readShare(hash);
      return;
    }
    try {
      const url = preparedLinkTarget(hash, document.baseURI);
      if (url) this.prepared = { url, host: new URL(url).host };
    } catch (error) {
      this.app.notify(error);
    }
  }

  cancelPrepared(): void {
    this.prepared = null;
  }

  /** Open: fetches the link's file and imports it as a new session, which opens. */
  async openPrepared(): Promise<void> {
    const ask = this.prepared;
    if (!ask || this.opening) return;
    this.opening = true;
    try {
      const file = await fetchPrepared(ask.url);
      await this.opened(await openPrepared(this.manager, file));
    } catch (error) {
      this.app.notify(error);
    } finally {
      this.opening = false;
      this.prepared = null;
    }
  }

  /** A shared link is read whole and checked before it is shown; a bad one is said, and nothing is written. */
  private async readShare(hash: string): Promise<void> {
    try {
      const opened = (await decodeShare(hash))!;
      this.shared = { opened, made: await sessionFromShare(this.manager, opened.key) };
    } catch (error) {
      this.app.notify(error);
    }
  }

  closeShared(): void {
    this.shared = null;
  }

  /** Go to the session the link made before, instead of making another. */
  goToShared(): void {
    const made = this.shared?.made;
    this.shared = null;
    if (made) this.app.select(made.id);
  }

  /** Open as a new session (or another copy): the files and the cells, not run; Run all runs them. */
  async openShared(): Promise<void> {
    const ask = this.shared;
    if (!ask || this.opening) return;
    this.opening = true;
    try {
      await this.opened(await openShared(this.manager, ask.opened));
    } catch (error) {
      this.app.notify(error);
    } finally {
      this.opening = false;
      this.shared = null;
    }
  }
}
