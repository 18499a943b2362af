import type { ChangePart, InputRequest, SessionInfo, SessionManager, StartProgress, TraceOptions, VariableInfo, WorkspaceEntry } from '../lib';
import { WorkerTerminatedError } from '../lib';
import { listRounds, sendMessage, type Attachment, type Round, type RoundEvent } from '../lib/chat';
import { previewFile, type Preview } from '../lib/workspace/preview';
import { SessionPortability } from './session-portability.svelte';
import { SessionAssignmentView } from './session-assignment.svelte';
import type { Reporter } from './reporter';
import { TurtleEvents, type TurtleEvent, type TurtlePicture } from '../lib/turtle';
import { ask, prepareAsk, readSessionPrefs, writeSessionPrefs, type Approval, type AssistantSessionPrefs, type CodeCard } from '../lib/assistant';
import { assistantStatus, type AssistantStatus } from './assistant-status.svelte';
import { quoteName } from '../lib/quote-name';
import { errorText, language, m } from './i18n.svelte';
import type { RunError } from '../lib/worker-api';

/** An open file preview: the bytes it was made from, so an image can be shown from them. */
export interface ShownPreview {
  path: string;
  preview: Preview;
  data: Uint8Array;
}

/** The Session variables form, kept while runs end and tabs switch, as a draft is. */
export interface VarForm {
  key: string;
  value: string;
  /** The name being edited, so a renamed key replaces the old one. */
  editing: string | null;
  error: string;
}

/** A code card of an Ask round waiting for Run, Edit or Skip. */
export interface PendingApproval {
  card: CodeCard;
  decide(approval: Approval): void;
}

/** How the composer sends: a question to the assistant, or Python to run. */
export type MessageMode = 'ask' | 'code';

/** Whether this tab may run the session; 'unknown' until its claim is answered. */
export type ViewOwnership = 'unknown' | 'owned' | 'elsewhere';

/** What the panels show, as parts of a change (changes.ts). */
const PANEL_PARTS: readonly ChangePart[] = ['files', 'variables', 'sessionVars', 'imports'];

/**
 * Everything the page shows of one session, and the actions on it. There is one instance per
 * session id (see AppState), and every async answer is applied to the instance whose id it
 * was asked for: an answer that arrives after the person switched sessions lands in the
 * session it belongs to, never in whichever is open (the bug class PyTabs exists to beat).
 */
export class SessionView {
  /** The session's record as last listed; a placeholder while a new session is being stored. */
  info = $state.raw<SessionInfo>() as SessionInfo;
  /** Stored history, as last read. */
  stored = $state.raw<Round[]>([]);
  /** Rounds this page is running in the session, as last drawn. */
  live = $state.raw<Round[]>([]);
  /** Unsent editor text. */
  draft = '';
  attachments = $state.raw<Attachment[]>([]);
  files = $state.raw<WorkspaceEntry[]>([]);
  variables = $state.raw<VariableInfo[]>([]);
  sessionVars = $state.raw<Record<string, string>>({});
  varForm = $state<VarForm>({ key: '', value: '', editing: null, error: '' });
  /** The latest step of the session's start in this tab, while it starts. */
  progress = $state.raw<StartProgress | null>(null);
  ownership = $state<ViewOwnership>('unknown');
  /**
   * The turtle screens this session's running rounds draw on, by `<round id>/<screen>`: what
   * their live views draw (a plain Map: each view redraws from it once per frame).
   */
  readonly turtlePictures = new Map<string, TurtlePicture>();

  /** The picture a running round draws live on screen, if any. */
  livePicture(roundId: string, screen: string): TurtlePicture | undefined {
    return this.turtlePictures.get(`${roundId}/${screen}`);
  }

  /**
   * The round whose turtle reacts to clicks and keys on its drawing: its run's mainloop says so
   * in the round's own turtle changes (TurtlePicture.listening), never guessed from which round
   * runs when a request comes (a finished round stays live until it is stored).
   */
  turtleListening = $state<string | null>(null);
  private readonly turtleEvents = new TurtleEvents();

  /** Tells the person about a failure of an action in the chat (saving a drawing). */
  notify(error: unknown): void {
    this.report.notify(error);
  }

  /** The line this session's run waits for (input(), getpass), while it waits. */
  input = $state.raw<InputRequest | null>(null);
  preview = $state.raw<ShownPreview | null>(null);
  /** Held saved variables, the link it came from, Run all of an imported notebook. */
  readonly portable: SessionPortability;
  /** The assignment it carries, Check my work, Hand in, and (the teacher's) grading. */
  readonly assignment: SessionAssignmentView;
  /** The mode this session chose; until it chooses, Ask once an endpoint is set (see `mode`). */
  modeChoice = $state<MessageMode | undefined>(undefined);
  /** Run the assistant's code without asking: this session's choice, on by default. */
  autoRun = $state(true);
  /** Code cards of this session's Ask rounds waiting for the person, by `<round id>:<callId>`. */
  approvals = $state.raw<ReadonlyMap<string, PendingApproval>>(new Map());

  /** Resolves once the session is in storage (at once for one that already was). */
  readonly stored$: Promise<void>;
  /** This tab claimed the session, so a later 'elsewhere' means another tab took it over. */
  private claimed = false;
  /** Set when the person deletes the session: what it was doing no longer concerns them. */
  private deleted = false;
  /** The file asked for last: a slow preview of an earlier click must not replace it. */
  private opening: string | null = null;
  /** Counts session-variable reads, so one that started before a save cannot put old values back. */
  private varReads = 0;
  private refreshing: Promise<void> | null = null;
  /** What the next read reads (see `refresh`). */
  private unread = new Set<ChangePart>();
  /** The Stop of each Ask round under way in this session. */
  private readonly asking = new Set<AbortController>();
  /** Counts prefs reads, so one that started before a choice cannot put the old choice back. */
  private prefReads = 0;
  private readonly assistant: AssistantStatus;

  readonly shownRounds = $derived.by(() => {
    const byId = new Map(this.stored.map((r) => [r.id, r]));
    for (const r of this.live) byId.set(r.id, r);
    return [...byId.values()].sort((a, b) => a.seq - b.seq);
  });
  readonly liveIds = $derived(new Set(this.live.map((r) => r.id)));
  /**
   * The round whose run waits for a line: runs are queued, so it is the earliest Code round
   * this page is running (the assistant's code never asks).
   */
  readonly inputRound = $derived(
    this.input ? (this.live.filter((r) => r.kind !== 'ask' && r.state === 'running').sort((a, b) => a.seq - b.seq)[0]?.id ?? null) : null,
  );

  constructor(
    readonly id: string,
    info: SessionInfo,
    private readonly manager: SessionManager,
    private readonly report: Reporter,
    /** A new session's creation, still under way; undefined for one already stored. */
    creating?: Promise<unknown>,
  ) {
    this.info = info;
    this.progress = manager.startProgress(id);
    this.input = manager.pendingInput(id);
    this.stored$ = creating ? creating.then(() => undefined) : Promise.resolve();
    this.portable = new SessionPortability(this, manager, report);
    this.assignment = new SessionAssignmentView(this, manager, report);
    this.assistant = assistantStatus(manager.settingsStore);
    void this.loadPrefs();
  }

  get mode(): MessageMode {
    if (this.helpOff) return 'code';
    return this.modeChoice ?? (this.assistant.configured ? 'ask' : 'code');
  }

  /** A student's session whose assignment turned error explanations and the assistant off for a test. */
  get helpOff(): boolean {
    const current = this.assignment.current;
    return current?.role === 'student' && current.assignment.noHelp === true;
  }

  /** ErrorHelp (error-help.ts): what a run's error offers in this session. */
  get explanations(): boolean {
    return !this.helpOff;
  }

  get canAsk(): boolean {
    return !this.helpOff && this.assistant.configured;
  }

  /**
   * "Explain this error": asks the assistant about a run's error, with its code and traceback, in
   * the language shown (named in the question). The draft and the attachments stay for the next message.
   */
  explainError(error: RunError, code: string): Promise<void> {
    const locale = language.locale;
    const name = new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
    return this.askWith(m.explain_ask_question({ language: name, code, traceback: error.traceback || `${error.ename}: ${error.evalue}` }), []);
  }

  /** Reads this session's assistant choices (message mode, auto-run). */
  async loadPrefs(): Promise<void> {
    const read = ++this.prefReads;
    try {
      const prefs = await readSessionPrefs(this.manager.settingsStore, this.id);
      if (read !== this.prefReads) return;
      this.modeChoice = prefs.mode;
      this.autoRun = prefs.autoRun;
    } catch (error) {
      if (!this.deleted) this.report.notify(error);
    }
  }

  setMode(mode: MessageMode): Promise<void> {
    this.modeChoice = mode;
    if (this.draft.trim()) this.startedWriting();
    return this.savePrefs({ mode });
  }

  setAutoRun(autoRun: boolean): Promise<void> {
    this.autoRun = autoRun;
    return this.savePrefs({ autoRun });
  }

  /** Stores a choice already shown; a read still under way must not put back the old one. */
  private async savePrefs(change: Partial<AssistantSessionPrefs>): Promise<void> {
    this.prefReads++;
    try {
      await writeSessionPrefs(this.manager.settingsStore, this.id, change);
    } catch (error) {
      this.report.notify(error);
    }
  }

  get readOnly(): boolean {
    return this.ownership === 'elsewhere';
  }

  get busy(): boolean {
    return this.info.status === 'running' || this.live.length > 0;
  }

  /**
   * Reads what the panels show of this session, all of it or the `parts` a change touched;
   * calls that overlap are joined into one more read.
   */
  refresh(parts: Iterable<ChangePart> = PANEL_PARTS): Promise<void> {
    for (const part of parts) if (PANEL_PARTS.includes(part)) this.unread.add(part);
    if (this.refreshing || !this.unread.size) return this.refreshing ?? Promise.resolve();
    this.refreshing = (async () => {
      while (this.unread.size) {
        const parts = this.unread;
        this.unread = new Set();
        await this.read(parts);
      }
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private async read(parts: ReadonlySet<ChangePart>): Promise<void> {
    if (this.deleted) return;
    await this.stored$;
    const varRead = parts.has('sessionVars') ? ++this.varReads : this.varReads;
    try {
      const [files, variables, vars] = await Promise.all([
        parts.has('files') ? this.manager.listFiles(this.id) : null,
        parts.has('variables') ? this.manager.listVariables(this.id) : null,
        parts.has('sessionVars') ? this.manager.getSessionVars(this.id) : null,
      ]);
      if (files) {
        this.files = files.sort((a, b) => a.path.localeCompare(b.path));
        // A preview of a file that is gone would mislead.
        if (this.preview && !files.some((f) => f.path === this.preview!.path)) this.preview = null;
      }
      if (variables) this.variables = variables.sort((a, b) => a.name.localeCompare(b.name));
      if (vars && varRead === this.varReads) this.sessionVars = vars;
      // After the manager's reads: once storage is closed (erased) they fail first, and this opens no connection.
      if (parts.has('imports')) await Promise.all([this.portable.read(), this.assignment.read()]);
    } catch (error) {
      if (!this.deleted) this.report.notify(error);
    }
  }

  /**
   * Reads the stored history, when the session is opened. Not on every change: a long
   * history would be read and drawn again after each run; this page's own rounds are
   * added as they end (`send`).
   */
  async loadHistory(): Promise<void> {
    try {
      await this.stored$;
      this.stored = await listRounds(this.manager, this.id);
    } catch (error) {
      if (!this.deleted) this.report.notify(error);
    }
  }

  /** The listed record, and whether another tab took the session over since this tab claimed it. */
  updateInfo(info: SessionInfo): void {
    this.info = info;
    if (this.claimed && this.manager.ownership(this.id) === 'elsewhere') {
      this.claimed = false;
      this.ownership = 'elsewhere';
    }
  }

  setProgress(step: StartProgress | null): void {
    this.progress = step;
  }

  setInput(request: InputRequest | null): void {
    this.input = request;
    if (!request?.turtle) {
      this.turtleEvents.stop();
      return;
    }
    this.turtleEvents.wait(request, (line) => {
      if (this.input?.id === request.id) this.answerInput(request.id, line);
    });
  }

  /** A click or key on the drawing of the round that listens: the answer to its run's turtle request. */
  turtleEvent(event: TurtleEvent): void {
    this.turtleEvents.send(event);
  }

  /** Sends the person's line (null: the end of input) to the request it was typed for; false if it could not. */
  answerInput(requestId: string, line: string | null): boolean {
    try {
      this.manager.answerInput(this.id, requestId, line);
      return true;
    } catch (error) {
      this.report.notify(error);
      return false;
    }
  }

  /** Claims the session for this tab and starts its Python; another tab's session stays read-only here. */
  async start(): Promise<void> {
    try {
      await this.stored$;
      const ownership = await this.manager.claim(this.id);
      if (this.deleted) return;
      this.ownership = ownership;
      if (ownership === 'elsewhere') return;
      this.claimed = true;
      const report = await this.manager.startSession(this.id);
      if (report.failed.length) {
        const lost = report.failed.map((f) => `${f.name} (${f.reason})`).join('; ');
        this.report.notify(new Error(m.notice_restore_failed({ name: this.info.name, lost })));
      }
    } catch (error) {
      if (this.deleted || (error instanceof WorkerTerminatedError && error.cause === 'deleted')) return;
      this.report.notify(new Error(m.notice_start_failed({ error: errorText(error) })));
    }
  }

  async takeOver(): Promise<void> {
    try {
      await this.manager.takeOver(this.id);
      await this.start();
      this.report.inform(m.notice_taken_over());
    } catch (error) {
      this.report.notify(error);
    }
  }

  private setLive(round: Round | null, roundId: string): void {
    const others = this.live.filter((r) => r.id !== roundId);
    this.live = round ? [...others, round] : others;
  }

  /**
   * Sends a message with the attachments gathered so far; the composer is empty again at once.
   * Run all and an embed send without the composer's; `onEvent` hears the round's events as they
   * come (an embed tells its page). Resolves with the finished round, or null when it failed to run.
   */
  async send(
    text: string,
    { composer = true, onEvent, trace }: { composer?: boolean; onEvent?: (event: RoundEvent) => void; trace?: TraceOptions } = {},
  ): Promise<Round | null> {
    const files = composer ? this.attachments : [];
    if (!text.trim() && !files.length) return null;
    if (composer) {
      this.attachments = [];
      this.draft = '';
    }
    return this.liveRound((draw) =>
      sendMessage(this.manager, this.id, text, {
        files,
        trace,
        onEvent: (event, round) => {
          onEvent?.(event);
          draw(event, round);
        },
      }),
    );
  }

  /** Makes round `roundId` the one whose drawing takes clicks and keys while one of its screens says it listens. */
  private noteListening(roundId: string, key: string, picture: TurtlePicture): void {
    const prefix = `${roundId}/`;
    const listens = picture.listening || [...this.turtlePictures].some(([k, p]) => k !== key && k.startsWith(prefix) && p.listening);
    if (listens) this.turtleListening = roundId;
    else if (this.turtleListening === roundId) this.turtleListening = null;
  }

  /**
   * Runs a round and draws it while it runs, at most once per frame (output can stream faster
   * than the screen updates); the finished round joins the stored ones.
   */
  private async liveRound(run: (onEvent: (event: RoundEvent, round: Round) => void, latest: () => Round | null) => Promise<Round>): Promise<Round | null> {
    let frame = 0;
    let latest: Round | null = null;
    const forgetPictures = (id: string) => {
      for (const key of this.turtlePictures.keys()) if (key.startsWith(`${id}/`)) this.turtlePictures.delete(key);
      if (this.turtleListening === id) {
        this.turtleListening = null;
        this.turtleEvents.reset();
      }
    };
    const draw = () => {
      frame = 0;
      if (latest) this.setLive({ ...latest, events: latest.events.map((e) => ({ ...e })) }, latest.id);
    };
    try {
      await this.stored$;
      const round = await run(
        (event, r) => {
          latest = r;
          if (event.type === 'turtle_live' && event.picture) {
            const key = `${r.id}/${event.screen}`;
            this.noteListening(r.id, key, event.picture);
            // A screen's later changes leave the round as it was: its canvas redraws itself (TurtleCanvas).
            if (this.turtlePictures.get(key) === event.picture) return;
            this.turtlePictures.set(key, event.picture);
          }
          frame ||= requestAnimationFrame(draw);
        },
        () => latest,
      );
      cancelAnimationFrame(frame);
      this.stored = [...this.stored.filter((r) => r.id !== round.id), round];
      this.setLive(null, round.id);
      forgetPictures(round.id);
      return round;
    } catch (error) {
      cancelAnimationFrame(frame);
      if (latest) {
        this.setLive(null, (latest as Round).id);
        forgetPictures((latest as Round).id);
      }
      this.report.notify(error);
      return null;
    }
  }

  /**
   * Asks the assistant with the attachments gathered so far, drawn live like `send`. The round
   * has its own AbortController, so Stop ends its stream and its run.
   */
  async ask(question: string): Promise<void> {
    const files = this.attachments;
    if (!question.trim()) return;
    this.attachments = [];
    this.draft = '';
    await this.askWith(question, files);
  }

  private async askWith(question: string, files: Attachment[]): Promise<void> {
    const controller = new AbortController();
    this.asking.add(controller);
    try {
      await this.liveRound((onEvent, latest) =>
        ask(this.manager, this.id, question, {
          files,
          signal: controller.signal,
          // Asked at each code card: turning auto-run off mid-round holds the round's next card.
          autoRun: () => this.autoRun,
          approve: (card, signal) => this.waitForApproval(`${latest()?.id}:${card.callId}`, card, signal),
          onEvent,
        }),
      );
    } finally {
      this.asking.delete(controller);
    }
  }

  /**
   * The person started writing (the draft was empty): in Ask mode, the model in this browser is
   * loaded and reads the question's start now (assistant/ask.ts prepareAsk), not at the Send. A
   * failure shows with the question, which loads it again.
   */
  startedWriting(): void {
    if (this.mode !== 'ask' || !this.assistant.configured) return;
    void prepareAsk(this.manager, this.id).catch(() => undefined);
  }

  /** Waits for Run, Edit or Skip on a code card; a Stop of the round drops the question. */
  private waitForApproval(key: string, card: CodeCard, signal: AbortSignal): Promise<Approval> {
    return new Promise((resolve) => {
      const drop = () => {
        const next = new Map(this.approvals);
        next.delete(key);
        this.approvals = next;
      };
      signal.addEventListener('abort', drop, { once: true });
      this.approvals = new Map(this.approvals).set(key, {
        card,
        decide: (approval) => {
          signal.removeEventListener('abort', drop);
          drop();
          resolve(approval);
        },
      });
    });
  }

  /** The person's answer to a waiting code card. */
  decide(key: string, approval: Approval): void {
    this.approvals.get(key)?.decide(approval);
  }

  async stop(): Promise<void> {
    // An Ask round stops itself: its stream, and its run through the same stop as typed code.
    if (this.asking.size) {
      for (const controller of this.asking) controller.abort();
      return;
    }
    try {
      const how = await this.manager.stop(this.id);
      if (how === 'restarted') this.report.inform(m.notice_restarted());
    } catch (error) {
      this.report.notify(error);
    }
  }

  /** Adds files to the next message (a file of the same name is replaced). */
  async attach(list: FileList | File[]): Promise<void> {
    // Taken now: the picker empties its FileList as soon as this returns to it.
    const files = Array.from(list);
    for (const file of files) {
      try {
        const data = new Uint8Array(await file.arrayBuffer());
        this.attachments = [...this.attachments.filter((a) => a.name !== file.name), { name: file.name, data }];
      } catch (error) {
        this.report.notify(new Error(m.notice_read_failed({ name: quoteName(file.name), error: errorText(error) })));
      }
    }
  }

  detach(name: string): void {
    this.attachments = this.attachments.filter((a) => a.name !== name);
  }

  async upload(list: FileList | File[]): Promise<void> {
    // Taken now: the picker empties its FileList as soon as this returns to it.
    const files = Array.from(list);
    await this.stored$;
    for (const file of files) {
      try {
        await this.manager.writeFile(this.id, file.name, new Uint8Array(await file.arrayBuffer()));
        this.report.inform(m.notice_uploaded({ name: file.name }));
      } catch (error) {
        this.report.notify(new Error(m.notice_upload_failed({ name: quoteName(file.name), error: errorText(error) })));
      }
    }
  }

  /** Opens a file's preview, or closes it when it is the one shown. */
  async togglePreview(path: string): Promise<void> {
    if (this.preview?.path === path) {
      this.opening = null;
      this.preview = null;
      return;
    }
    this.opening = path;
    try {
      const data = await this.manager.readFile(this.id, path);
      const preview = await previewFile(path, data);
      if (this.opening === path) this.preview = { path, data, preview };
    } catch (error) {
      this.report.notify(error);
    }
  }

  closePreview(): void {
    this.opening = null;
    this.preview = null;
  }

  async download(path: string): Promise<void> {
    try {
      const data = await this.manager.readFile(this.id, path);
      const url = URL.createObjectURL(new Blob([data as BlobPart]));
      const a = document.createElement('a');
      a.href = url;
      a.download = path.slice(path.lastIndexOf('/') + 1);
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      this.report.notify(error);
    }
  }

  /** Renames a file; throws the reason, for the rename form to show. */
  async renameFile(from: string, to: string): Promise<void> {
    await this.manager.renameFile(this.id, from, to);
    this.report.inform(m.notice_file_renamed({ from, to }));
  }

  async deleteFile(path: string): Promise<void> {
    try {
      await this.manager.deleteFile(this.id, path);
      this.report.inform(m.notice_file_deleted({ path }));
    } catch (error) {
      this.report.notify(error);
    }
  }

  /** Saves the session variables; the result shows in this session's panel whichever is open by then. */
  private async saveVars(next: Record<string, string>): Promise<boolean> {
    try {
      await this.manager.setSessionVars(this.id, next);
      this.varReads++;
      this.sessionVars = next;
      this.varForm.error = '';
      return true;
    } catch (error) {
      this.varForm.error = errorText(error);
      return false;
    }
  }

  /** Adds the variable in the form, or saves the one being edited. */
  async submitVar(): Promise<void> {
    const form = this.varForm;
    const name = form.key.trim();
    if (!name) {
      form.error = m.svars_needs_name();
      return;
    }
    const next = { ...this.sessionVars };
    if (form.editing !== null) delete next[form.editing];
    next[name] = form.value;
    if (await this.saveVars(next)) this.varForm = { key: '', value: '', editing: null, error: '' };
  }

  editVar(name: string): void {
    this.varForm = { key: name, value: this.sessionVars[name] ?? '', editing: name, error: '' };
  }

  cancelVarEdit(): void {
    this.varForm = { key: '', value: '', editing: null, error: '' };
  }

  async removeVar(name: string): Promise<void> {
    const next = { ...this.sessionVars };
    delete next[name];
    await this.saveVars(next);
  }

  /** What the delete dialog says will be lost. */
  async describeContents(): Promise<string> {
    const [files, rounds] = await Promise.all([this.manager.listFiles(this.id), listRounds(this.manager, this.id)]);
    return m.chat_session_contents({ variables: this.info.variableCount, files: files.length, messages: rounds.length });
  }

  async rename(name: string): Promise<void> {
    await this.manager.renameSession(this.id, name);
  }

  async clear(): Promise<void> {
    await this.manager.clearSession(this.id);
  }

  /** Deletes the session; its start or run ending because of it is not an error to show. */
  async delete(): Promise<void> {
    this.deleted = true;
    try {
      await this.manager.deleteSession(this.id);
    } catch (error) {
      this.deleted = false;
      throw error;
    }
  }
}
