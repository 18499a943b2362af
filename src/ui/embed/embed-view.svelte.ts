import type { SessionManager, TraceOptions } from '../../lib';
import type { Round, RoundEvent } from '../../lib/chat';
import {
  authorCode,
  EmbedBridge,
  openInPyTabsUrl,
  resetEmbed,
  type EmbedPage,
  type EmbedRunResult,
  type EmbedSession,
  type EmbedStatus,
  type EmbedVariable,
  type OpenedEmbed,
} from '../../lib/embed';
import type { Reporter } from '../reporter';
import { tell } from '../i18n.svelte';
import { SessionView } from '../session-view.svelte';
import { errorText, m } from '../i18n.svelte';

/** A line the embed shows under its output: an error, or news. */
export interface EmbedNotice {
  kind: 'error' | 'info';
  text: string;
}


/** What a finished round gave, as the page's API tells it. */
function runResult(round: Round | null): EmbedRunResult {
  // internal: the course page's script reads a run's result, as it reads the protocol's refusals (src/lib/embed/protocol.ts).
  if (!round) return { status: 'error', stdout: '', stderr: '', error: { ename: 'RunError', evalue: 'The code could not run (see the embed).', traceback: '' } };
  let stdout = '';
  let stderr = '';
  let result: string | undefined;
  let error: EmbedRunResult['error'];
  const input: string[] = [];
  for (const event of round.events) {
    if (event.type === 'stdout') stdout += event.text;
    else if (event.type === 'input') input.push(event.text);
    else if (event.type === 'stderr') stderr += event.text;
    else if (event.type === 'result') result = event.bundle['text/plain'];
    else if (event.type === 'exec_error') error = event.error;
    else if (event.type === 'round_error') error = { ename: 'RunError', evalue: typeof event.message === 'string' ? event.message : tell(event.message), traceback: '' };
  }
  const status = round.state === 'stopped' ? 'stopped' : round.state === 'finished' ? 'ok' : 'error';
  return { status, stdout, stderr, ...(input.length ? { input } : {}), ...(result === undefined ? {} : { result }), ...(error ? { error } : {}) };
}

/**
 * One embed: its session (a SessionView, the full app's view model of one session), the code in
 * its editor, and its page's API (EmbedBridge). Python starts on the reader's first Run (or the
 * page's first call that needs it), or at once with `run=load`, so a page with many embeds does
 * not start many Pythons nobody uses.
 */
export class EmbedView implements Reporter {
  readonly session: SessionView;
  /** The code in the editor: the reader's last run, else the author's. */
  code = $state('');
  /** Counts replacements of the code from storage or a reset, so the editor shows the new text. */
  codeVersion = $state(0);
  notices = $state.raw<EmbedNotice[]>([]);
  status = $state<EmbedStatus>('idle');
  /** Set when the author's version changed since the reader's copy was made from it. */
  authorChanged = $state(false);
  readonly bridge: EmbedBridge;
  private starting: Promise<void> | null = null;
  /** The last run asked of this embed, settled either way. */
  private lastRun: Promise<unknown> = Promise.resolve();

  constructor(
    readonly manager: SessionManager,
    readonly opened: OpenedEmbed,
    readonly page: EmbedPage,
    embed: EmbedSession,
    info: Awaited<ReturnType<SessionManager['getSession']>>,
    private readonly appUrl: string,
    frame: { self: Window; parent: Window; allowed: ReadonlySet<string> },
  ) {
    this.session = new SessionView(embed.sessionId, info, manager, this);
    this.authorChanged = embed.authorChanged;
    this.code = authorCode(opened.author);
    this.bridge = new EmbedBridge(
      { self: frame.self, parent: frame.parent, parentOrigin: frame.self === frame.parent ? null : page.origin, allowed: frame.allowed, sessionId: embed.sessionId },
      {
        run: (code) => this.run(code),
        writeFile: (path, data) => this.writeFile(path, data),
        getVariable: (name) => this.getVariable(name),
        listVariables: () => this.listVariables(),
      },
    );
  }

  get sessionId(): string {
    return this.session.id;
  }

  notify(error: unknown): void {
    this.notices = [...this.notices, { kind: 'error', text: errorText(error) }];
  }

  inform(text: string): void {
    this.notices = [...this.notices, { kind: 'info', text }];
  }

  private setStatus(status: EmbedStatus): void {
    this.status = status;
    this.bridge.post({ event: 'status', status });
  }

  /** Reads what the embed shows of its session: its last run (whose code the editor takes) and variables. */
  async load(): Promise<void> {
    await Promise.all([this.session.loadHistory(), this.session.refresh()]);
    const last = this.session.shownRounds.at(-1);
    if (last && last.message !== this.code) {
      this.code = last.message;
      this.codeVersion++;
    }
  }

  /** Starts the session's Python once (claiming it for this frame). */
  ensureStarted(): Promise<void> {
    this.starting ??= (async () => {
      this.setStatus('starting');
      await this.session.start();
      this.setStatus('ready');
    })().catch((error) => {
      this.starting = null;
      this.notify(error);
    });
    return this.starting;
  }

  /** Runs `code` (the editor's, or the page's) as the session's next round, drawn here and told to the page; with `trace` (Step through), recording its steps. */
  run(code = this.code, trace?: TraceOptions): Promise<EmbedRunResult> {
    const running = this.runNow(code, trace);
    // Before it reaches the session's queue (the start, the round's record): a read asked meanwhile waits for it.
    this.lastRun = running.catch(() => undefined);
    return running;
  }

  private async runNow(code: string, trace?: TraceOptions): Promise<EmbedRunResult> {
    await this.ensureStarted();
    this.setStatus('running');
    try {
      const round = await this.session.send(code, { composer: false, onEvent: (event) => this.tell(event), trace });
      return runResult(round);
    } finally {
      this.setStatus('idle');
    }
  }

  private tell(event: RoundEvent): void {
    if (event.type === 'stdout' || event.type === 'stderr') this.bridge.post({ event: 'output', stream: event.type, text: event.text });
    else if (event.type === 'input') {
      const { prompt, text, request, password } = event;
      this.bridge.post({ event: 'input', prompt, text, request, ...(password ? { password } : {}) });
    }
    else if (event.type === 'result') this.bridge.post({ event: 'result', text: event.bundle['text/plain'] ?? '' });
    else if (event.type === 'exec_error') this.bridge.post({ event: 'error', error: event.error });
  }

  async writeFile(path: string, data: Uint8Array): Promise<{ path: string; size: number }> {
    await this.manager.writeFile(this.sessionId, path, data);
    const written = (await this.manager.listFiles(this.sessionId)).find((f) => f.path === path.replace(/^\.\//, ''));
    return { path: written?.path ?? path, size: data.byteLength };
  }

  /**
   * The session's variables once the runs under way have committed, as a kernel answers in
   * order: read at once, a page that saw a run's output got the list from before that run.
   */
  async listVariables(): Promise<EmbedVariable[]> {
    await this.lastRun;
    await this.manager.settled(this.sessionId);
    return (await this.manager.listVariables(this.sessionId)).map(({ name, type, sizeBytes, preview, persisted }) => ({ name, type, sizeBytes, preview, persisted }));
  }

  /** A variable's facts and its repr, which the session's Python gives (the name alone, run as an expression). */
  async getVariable(name: string): Promise<EmbedVariable> {
    const found = (await this.listVariables()).find((v) => v.name === name);
    // internal: getVariable answers the course page's script, not a person (src/lib/embed/bridge.ts).
    if (!found) throw new Error(`No variable named "${name}" in this embed's session.`);
    await this.ensureStarted();
    // internal: raised in Python only if the value's repr asks for input; its error goes to the course page's script below.
    const result = await this.manager.run(this.sessionId, name, undefined, { noInput: 'Reading a variable asks for no input.' });
    if (result.error) throw new Error(`${result.error.ename}: ${result.error.evalue}`);
    return { ...found, repr: result.result?.['text/plain'] ?? 'None' };
  }

  /** Reset: the author's version again (files, code); the reader's runs and variables go, and Python restarts. */
  async reset(): Promise<void> {
    try {
      await resetEmbed(this.manager, this.sessionId, this.page, this.opened.options, this.opened.author);
      this.starting = null;
      this.code = authorCode(this.opened.author);
      this.codeVersion++;
      this.authorChanged = false;
      this.notices = [];
      await this.load();
      this.setStatus('idle');
      this.inform(m.rt_embed_back_to_author());
    } catch (error) {
      this.notify(error);
    }
  }

  /** Open in PyTabs: the reader's code and the session's text files as a shared link in a new tab. */
  async openInPyTabs(): Promise<void> {
    try {
      const url = await openInPyTabsUrl(this.manager, this.sessionId, this.code, this.appUrl);
      window.open(url, '_blank', 'noopener');
    } catch (error) {
      this.notify(error);
    }
  }
}
