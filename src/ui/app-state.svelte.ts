import { SvelteMap } from 'svelte/reactivity';
import { ChangeSet, isShareLink, nextSessionName, type Change, type SessionInfo, type SessionManager } from '../lib';
import { SessionView } from './session-view.svelte';
import type { Reporter } from './reporter';
import { AppPortability } from './app-portability.svelte';
import { errorText, m } from './i18n.svelte';

export interface Notice {
  id: number;
  kind: 'error' | 'info';
  text: string;
}


/** The id a `#/s/<id>` address names, if it names one. */
function idFromHash(): string | null {
  const m = /^#\/s\/([^/]+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
}

/**
 * The page's state above the sessions: the list, which one is open, notices. What the page
 * shows of a session lives in that session's own SessionView, made once per id here.
 */
export class AppState implements Reporter {
  sessions = $state.raw<SessionInfo[]>([]);
  currentId = $state<string | null>(null);
  notices = $state.raw<Notice[]>([]);
  ready = $state(false);
  private readonly views = new SvelteMap<string, SessionView>();
  /** Ids of new sessions whose records are still being stored. */
  private readonly creating = new Set<string>();
  private noticeSeq = 0;
  /** Changes heard since the last frame, and that frame. */
  private heard: ChangeSet | null = null;
  private frame = 0;
  /** Reads run one after another (see `apply`): the read under way, and the changes waiting for it. */
  private reading: Promise<void> = Promise.resolve();
  private waiting: { changes: ChangeSet; done: Promise<void> } | null = null;

  readonly current = $derived(this.currentId ? (this.views.get(this.currentId) ?? null) : null);

  /** Import session and prepared sessions' links. */
  readonly portability: AppPortability;

  constructor(private readonly manager: SessionManager) {
    this.portability = new AppPortability(this, manager);
  }

  /** The view of a session by its id, once it was opened. */
  viewOf(id: string): SessionView | null {
    return this.views.get(id) ?? null;
  }

  notify = (error: unknown): void => {
    this.notices = [...this.notices, { id: ++this.noticeSeq, kind: 'error', text: errorText(error) }];
  };

  inform = (text: string): void => {
    const id = ++this.noticeSeq;
    this.notices = [...this.notices, { id, kind: 'info', text }];
    setTimeout(() => (this.notices = this.notices.filter((n) => n.id !== id)), 5000);
  };

  dismiss(id: number): void {
    this.notices = this.notices.filter((n) => n.id !== id);
  }

  /** The view of a listed session, made on first use. */
  private view(info: SessionInfo): SessionView {
    let view = this.views.get(info.id);
    if (!view) {
      view = new SessionView(info.id, info, this.manager, this);
      this.views.set(info.id, view);
    }
    return view;
  }

  /**
   * Hears a change the manager reports. Changes come in bursts (a run's start, end and
   * commit): once a frame, storage is read for all of them, and leaves IndexedDB free for
   * the worker's commits.
   */
  hear = (change: Change): void => {
    // A live worker's state needs no storage: shown now, since a frame can come late while the
    // page's thread is busy (WebKit drew a run's result under "Starting" for up to 1.1 s after
    // a first start). Counts and a gone worker's stored status wait for the frame's read.
    if (change.sessionId !== null && change.parts.includes('state')) {
      const now = new ChangeSet();
      now.add({ sessionId: change.sessionId, parts: ['state'] });
      this.update(now);
    }
    (this.heard ??= new ChangeSet()).add(change);
    this.frame ||= requestAnimationFrame(() => {
      const changes = this.heard!;
      this.frame = 0;
      this.heard = null;
      void this.apply(changes).catch(this.notify);
    });
  };

  /** Stops reading for changes heard (the page is going). */
  stopHearing(): void {
    cancelAnimationFrame(this.frame);
  }

  /** Reads the session list and everything the open session's panels show. */
  refresh(): Promise<void> {
    const everything = new ChangeSet();
    everything.everything = true;
    return this.apply(everything);
  }

  /**
   * Reads what `changes` touched. One read at a time, the changes heard meanwhile joined in
   * the next: a count added from what the page knows must land on the record read before it,
   * never be overwritten by a read that started before the run was counted.
   */
  private apply(changes: ChangeSet): Promise<void> {
    if (this.waiting) {
      this.waiting.changes.merge(changes);
      return this.waiting.done;
    }
    const waiting = { changes, done: Promise.resolve() };
    waiting.done = this.reading.then(() => {
      this.waiting = null;
      return this.read(waiting.changes);
    });
    this.waiting = waiting;
    this.reading = waiting.done.catch(() => undefined);
    return waiting.done;
  }

  private async read(changes: ChangeSet): Promise<void> {
    // A session whose worker went away shows its record's status again.
    const recordStatus = [...changes.parts].some(([id, parts]) => parts.has('state') && !this.manager.liveStatus(id));
    if (changes.records || recordStatus) {
      if (!(await this.readList())) return;
    } else this.update(changes);
    const current = this.current;
    if (current) await current.refresh(changes.of(current.id));
  }

  /**
   * Shows what the page knows of changed sessions without reading storage: their workers'
   * status, and runs this page counted (written to storage within BROADCAST_MS of the run).
   */
  private update(changes: ChangeSet): void {
    let changed = false;
    const sessions = this.sessions.map((info) => {
      const parts = changes.parts.get(info.id);
      if (!parts) return info;
      const runs = changes.runs.get(info.id) ?? 0;
      const status = parts.has('state') ? (this.manager.liveStatus(info.id) ?? info.status) : info.status;
      const next =
        runs ? { ...info, status, totalExecutions: info.totalExecutions + runs, lastActiveAt: Date.now() }
        : status !== info.status ? { ...info, status }
        : info;
      // Also when nothing listed changed: the view sees whether another tab took the session over.
      this.views.get(info.id)?.updateInfo(next);
      changed ||= next !== info;
      return next;
    });
    if (changed) this.sessions = sessions;
  }

  /** Reads the session list; false when the open session is gone and another was opened instead. */
  private async readList(): Promise<boolean> {
    const sessions = await this.manager.listSessions();
    const listed = new Set(sessions.map((s) => s.id));
    for (const info of sessions) this.views.get(info.id)?.updateInfo(info);
    // A new session is shown before its record is stored: keep it listed until it is.
    const pending = this.sessions.filter((s) => !listed.has(s.id) && this.creating.has(s.id));
    this.sessions = [...sessions, ...pending];
    // Sessions deleted elsewhere (another tab, the cleanup policy) take their views with them.
    for (const id of [...this.views.keys()]) {
      if (!listed.has(id) && !this.creating.has(id)) this.views.delete(id);
    }
    if (this.currentId && !this.views.has(this.currentId)) {
      if (this.sessions.length) this.select(this.sessions[0].id, 'replace');
      else this.currentId = null;
      return false;
    }
    return true;
  }

  /** Opens the app on the session the address names, else the first (a first visit gets a new one). */
  async open(): Promise<void> {
    this.sessions = await this.manager.listSessions();
    const cleaned = this.manager.lastCleanup;
    if (cleaned.deleted.length) this.inform(m.lib2_cleanup_deleted({ count: cleaned.deleted.length }));
    // A first visit opens straight into a session, ready to type in; one by a shared link makes
    // nothing until the person opens what the link carries.
    if (!this.sessions.length && !isShareLink(location.hash)) {
      await this.manager.createSession();
      this.sessions = await this.manager.listSessions();
    }
    this.openFromHash();
    this.ready = true;
  }

  openFromHash = (): void => {
    // A prepared session's link is read before the address is replaced by a session's.
    this.portability.readLink(location.hash);
    const id = idFromHash();
    if (id && this.sessions.some((s) => s.id === id)) return this.select(id, 'none');
    if (id) this.notify(new Error(m.rt_link_session_missing()));
    if (this.sessions.length) this.select(this.sessions[0].id, 'replace');
    else this.currentId = null;
  };

  /** Opens a session and names it in the URL; its Python starts so the first message is quick. */
  select(id: string, how: 'push' | 'replace' | 'none' = 'push'): void {
    const info = this.sessions.find((s) => s.id === id);
    if (!info) return;
    const view = this.view(info);
    this.currentId = id;
    const hash = `#/s/${encodeURIComponent(id)}`;
    // pushState/replaceState do not fire hashchange, so selecting does not re-enter openFromHash.
    if (location.hash !== hash && how === 'push') history.pushState(null, '', hash);
    else if (location.hash !== hash && how === 'replace') history.replaceState(null, '', hash);
    void view.refresh();
    void view.loadHistory();
    void view.start();
  }

  /**
   * Makes a session and opens it in the same step: its (empty, starting) view is on screen
   * before its record is stored, so nothing typed, dropped or attached in that moment can
   * reach the session that was open before. Its actions wait for the record.
   */
  newSession(): void {
    const id = crypto.randomUUID();
    const now = Date.now();
    const info: SessionInfo = {
      id,
      // Shown until the record is stored: storage names it, among every stored session.
      name: nextSessionName(this.sessions.map((s) => s.name)),
      createdAt: now,
      lastActiveAt: now,
      variableCount: 0,
      totalExecutions: 0,
      storageBytes: 0,
      status: 'starting',
    };
    this.creating.add(id);
    const created = this.manager.createSession(undefined, { id }).finally(() => this.creating.delete(id));
    const view = new SessionView(id, info, this.manager, this, created);
    this.views.set(id, view);
    this.sessions = [...this.sessions, info];
    this.currentId = id;
    history.pushState(null, '', `#/s/${encodeURIComponent(id)}`);
    created.then(
      () => {
        void this.refresh().catch(this.notify);
        void view.start();
      },
      (error) => {
        this.notify(new Error(m.rt_new_session_failed({ error: errorText(error) })));
        this.views.delete(id);
        this.sessions = this.sessions.filter((s) => s.id !== id);
        if (this.currentId === id) this.openFromHash();
      },
    );
  }

  /** Deletes a session and opens its neighbour. */
  async deleteSession(view: SessionView): Promise<void> {
    const index = this.sessions.findIndex((s) => s.id === view.id);
    await view.delete();
    this.views.delete(view.id);
    this.sessions = await this.manager.listSessions();
    if (this.currentId !== view.id) return;
    const next = this.sessions[Math.min(index, this.sessions.length - 1)];
    if (next) this.select(next.id, 'replace');
    else {
      this.currentId = null;
      history.replaceState(null, '', '#/');
    }
  }

  /** Passes each start step to its session's view. */
  progress = (sessionId: string, step: Parameters<SessionView['setProgress']>[0]): void => {
    this.views.get(sessionId)?.setProgress(step);
  };

  /** Passes each request for a line (and its end) to its session's view. */
  input = (sessionId: string, request: Parameters<SessionView['setInput']>[0]): void => {
    this.views.get(sessionId)?.setInput(request);
  };
}
