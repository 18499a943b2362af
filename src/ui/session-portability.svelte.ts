import type { SessionManager } from '../lib';
import {
  confirmImportedState,
  discardImportedState,
  exportSession,
  heldState,
  resetToOriginal,
  sessionOrigin,
  shareSession,
  type HeldSummary,
  type ImportKind,
  type ImportResult,
  type ShareOffer,
} from '../lib';
import type { Round } from '../lib/chat';
import { embedSession, type EmbedOffer, type EmbedSettings } from '../lib/embed';
import type { Reporter } from './reporter';
import { saveFile } from './save-file';
import { errorText, m } from './i18n.svelte';

/**
 * What this needs of its session's view model. The view model owns a SessionPortability and
 * imports this module; this module names only this shape, so the dependency runs one way.
 */
export interface PortableView {
  readonly id: string;
  readonly info: { readonly name: string };
  readonly shownRounds: readonly Round[];
  refresh(): Promise<void>;
  loadHistory(): Promise<void>;
  start(): Promise<void>;
  send(text: string, options: { composer: boolean }): Promise<unknown>;
}

/**
 * What one session shows of sessions as files: saved variables held for the person's yes,
 * the link it was opened from, the cells of an imported notebook or shared link that "Run
 * all" sends, and Share.
 * One per SessionView, so every answer lands in the session it was asked for.
 */
export class SessionPortability {
  /** Saved variables from a file made elsewhere, waiting for Load or Discard. */
  held = $state.raw<HeldSummary | null>(null);
  /** The address a session opened by link came from (it can be reset to that file). */
  origin = $state.raw<{ url: string; name: string } | null>(null);
  /** An imported notebook's or shared link's messages, until Run all sends them (kept in this page only). */
  runAll = $state.raw<string[]>([]);
  /** Where those messages came from, to name it. */
  runAllFrom = $state<ImportKind>('notebook');
  /** Set while Load, Discard, Run all or Reset is under way, so the buttons cannot run it twice. */
  acting = $state(false);

  constructor(
    private readonly view: PortableView,
    private readonly manager: SessionManager,
    private readonly report: Reporter,
  ) {}

  /** Reads what storage holds for this session; called by the view's refresh, after the manager's reads. */
  async read(): Promise<void> {
    const [held, origin] = await Promise.all([heldState(this.manager, this.view.id), sessionOrigin(this.manager, this.view.id)]);
    this.held = held;
    this.origin = origin ? { url: origin.url, name: origin.name } : null;
  }

  /** What an import (or a reset) returned: Run all for a notebook, its held state. */
  imported(result: ImportResult): void {
    this.runAll = result.runAll;
    this.runAllFrom = result.kind;
    this.held = result.held;
  }

  /** Share: a link carrying this session's code and text files, or why there is none. */
  async share(): Promise<ShareOffer | null> {
    try {
      return await shareSession(this.manager, this.view.id, location.href);
    } catch (error) {
      this.report.notify(new Error(m.notice_link_failed({ name: this.view.info.name, error: errorText(error) })));
      return null;
    }
  }

  /** Embed: the `<iframe>` snippet showing this session's code and text files with `settings`, or why there is none. */
  async embed(settings: EmbedSettings): Promise<EmbedOffer | null> {
    try {
      return await embedSession(this.manager, this.view.id, location.href, settings);
    } catch (error) {
      this.report.notify(new Error(m.notice_embed_failed({ name: this.view.info.name, error: errorText(error) })));
      return null;
    }
  }

  /** Export session: `<name>.pytabs.zip`, from the session's last saved state. */
  async exportFile(): Promise<void> {
    try {
      saveFile(await exportSession(this.manager, this.view.id));
    } catch (error) {
      this.report.notify(new Error(m.notice_export_failed({ name: this.view.info.name, error: errorText(error) })));
    }
  }

  /** Runs `act`, then reads storage again and restarts Python, whose memory was ended by it. */
  private async change(act: () => Promise<unknown>, done: string): Promise<boolean> {
    this.acting = true;
    try {
      await act();
      // A reset replaces the history too: read it again, as when the session is opened.
      await Promise.all([this.view.refresh(), this.view.loadHistory()]);
      void this.view.start();
      this.report.inform(done);
      return true;
    } catch (error) {
      this.report.notify(error);
      return false;
    } finally {
      this.acting = false;
    }
  }

  /** Load saved variables: the person said yes to code from a file made elsewhere. */
  loadHeld(): Promise<boolean> {
    return this.change(() => confirmImportedState(this.manager, this.view.id), m.notice_held_loading({ name: this.view.info.name }));
  }

  /** Discard them: files and history stay. */
  async discardHeld(): Promise<void> {
    this.acting = true;
    try {
      await discardImportedState(this.manager, this.view.id);
      this.held = null;
      this.report.inform(m.notice_held_discarded());
    } catch (error) {
      this.report.notify(error);
    } finally {
      this.acting = false;
    }
  }

  /** Reset to original: the session becomes the file it was opened from again. */
  async reset(): Promise<boolean> {
    const url = this.origin?.url ?? m.rt_its_link();
    return this.change(async () => this.imported(await resetToOriginal(this.manager, this.view.id)), m.rt_reset_to_original({ url }));
  }

  /** Run all: each imported cell in order, as a message of its own (stored as any other). */
  async runAllCells(): Promise<void> {
    const messages = this.runAll;
    this.runAll = [];
    this.acting = true;
    try {
      for (const [i, text] of messages.entries()) {
        const before = this.view.shownRounds.length;
        await this.view.send(text, { composer: false });
        const last = this.view.shownRounds.at(-1);
        // A cell that failed stops the rest, as in Jupyter (later cells would fail on what it did not make); Run all then offers the rest.
        if (this.view.shownRounds.length === before || last?.state !== 'finished') {
          this.runAll = messages.slice(i + 1);
          break;
        }
      }
    } finally {
      this.acting = false;
    }
  }
}
