import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { SessionManager } from '../sessions/manager';
import { readSessionPrefs, type AssistantSettings } from '../storage/assistant-settings';
import { splitMessage } from '../chat/blocks';
import { appendEvent, finishRound, newRound, OutputTranscript } from '../chat/round';
import type { Attachment, Round, RoundEvent, RoundState } from '../chat/types';
import type { RunResult } from '../worker-api';
import { createClient } from './client';
import { buildContext, estimateTokens, smallModelQuestion, smallModelSystem, type CodeChannel } from './context';
import { assistantEndpoint, type AssistantEndpoint } from './endpoint';
import { AssistantError } from './assistant-error';
import type { ErrorContext } from './errors';
import type { CodeCard, SentMessage, TurnMessage } from './events';
import { buildMemory, buildVerbatimMemory } from './memory';
import { DEFAULT_RETRY, retryDelay, type RetryPolicy } from './retry';
import { sleep } from '../timing';
import { RunOutput, summarizeRun } from './run-summary';
import { streamTurn, TurnError, type ModelTurn, type ToolCallRequest } from './stream';
import { describeFiles, describeVariables, parseRunArguments, TOOL_NAMES, TOOLS } from './tools';
import { currentLocale } from '../i18n/catalog';
import type { Locale } from '../i18n/locales';
import { said, SaidError, tellInEnglish, type Said } from '../i18n/said';

/** The part of the session engine a question needs: the same run (queue, time limit, Stop) as typed code. */
/** What input() raises in code the assistant runs: the model reads it in the run's result and can write code that needs none. */
// to the model: it is written for the model to act on, as the system message is (context.ts).
export const ASSISTANT_INPUT =
  'input() is not available in code the assistant runs: no person is at the keyboard. ' +
  'Write code that needs no input: take the values from the question, the files or the session variables.';

export type AssistantEngine = Pick<
  SessionManager,
  'history' | 'settingsStore' | 'run' | 'stop' | 'writeFile' | 'listFiles' | 'listVariables' | 'getSessionVars' | 'getSettings'
>;

/** The person's answer to a code card when code does not run automatically. */
export type Approval = { action: 'run' } | { action: 'edit'; code: string } | { action: 'skip'; reason?: string };

export interface AskOptions {
  /** Written to the session's workspace before the question is sent. */
  files?: Attachment[];
  /** Each event as the round records it, with the round so far. A `code_card` comes again on each status change. */
  onEvent?: (event: RoundEvent, round: Round) => void;
  /** Stop: ends the stream, stops a run under way (through the engine's stop) and ends the round. */
  signal?: AbortSignal;
  /** Asked for each code card when code does not run automatically; its signal aborts with the round. */
  approve?: (card: Readonly<CodeCard>, signal: AbortSignal) => Promise<Approval>;
  /**
   * Run the model's code without asking; by default the session's choice (on unless turned off).
   * A function is asked at each code card, so a change during the round applies to its next card.
   */
  autoRun?: boolean | (() => boolean);
  /** By default the page's endpoint for the engine's database (its Settings and key). */
  endpoint?: AssistantEndpoint;
  retry?: Partial<RetryPolicy>;
}

/** Error names of runs that ended because they were stopped (a time limit is an error the model hears of). */
const STOPPED = new Set(['KeyboardInterrupt', 'SessionRestarted', 'SessionTakenOver']);
/** Characters of a tool's answer to the model, at most. */
const TOOL_RESULT_LIMIT = 6000;

/** The round was stopped by the person: unwinds to the end of `ask`. */
class Stopped extends Error {}

/** A limit or an error ends the round with a note. */
class RoundOver extends SaidError {
  constructor(
    said: Said,
    readonly state: RoundState,
    readonly note?: 'limit',
  ) {
    super(said);
  }
}

function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Stopped());
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new Stopped());
    signal.addEventListener('abort', stop, { once: true });
    promise.then(
      (v) => (signal.removeEventListener('abort', stop), resolve(v)),
      (e) => (signal.removeEventListener('abort', stop), reject(e)),
    );
  });
}

/**
 * Asks the session's assistant a question and returns the finished round. The round is stored as
 * soon as it starts and again at its end, like a Code round (`kind: 'ask'`). The model gets the
 * session's context and earlier rounds, asks for code through `run_python` (or fenced python
 * blocks when it takes no tools), which runs through the engine like typed code, hears the
 * output, and answers. Everything of the round is local to this call: two sessions asking at
 * once share nothing but the endpoint's settings.
 */
export async function ask(engine: AssistantEngine, sessionId: string, question: string, options: AskOptions = {}): Promise<Round> {
  const { files = [], onEvent } = options;
  const endpoint = options.endpoint ?? (await assistantEndpoint(engine.settingsStore));
  const choice = options.autoRun ?? (await readSessionPrefs(engine.settingsStore, sessionId)).autoRun;
  const autoRun = typeof choice === 'function' ? choice : () => choice;
  if ((typeof choice === 'function' || !choice) && !options.approve) {
    // internal: a caller's fault (the app always passes approve), for the developer who calls ask().
    throw new Error('Code does not (or may stop to) run automatically in this session, so ask() needs an approve callback.');
  }
  const settings = endpoint.settings;
  const retry: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };

  const t0 = performance.now();
  const history = engine.history(sessionId);
  const round = await history.insert((seq): Round => ({ ...newRound(sessionId, seq, question, files.map((f) => f.name)), kind: 'ask' }));
  const transcript = new OutputTranscript();
  const emit = (event: RoundEvent) => {
    if (event.type === 'assistant_text') {
      const last = round.events.at(-1);
      if (last?.type === 'assistant_text' && last.step === event.step) last.text += event.text;
      else round.events.push({ ...event });
      onEvent?.(event, round);
      return;
    }
    if (event.type === 'stdout' || event.type === 'stderr') transcript.add(event.text);
    const recorded = appendEvent(round, event);
    if (recorded) onEvent?.(recorded, round);
  };
  const changed = (card: CodeCard) => onEvent?.(card, round);

  // The round's own stop: the caller's signal, plus a stop of the run under way.
  const controller = new AbortController();
  const signal = controller.signal;
  let running = false;
  const onAbort = () => {
    controller.abort();
    if (running) void engine.stop(sessionId).catch(() => undefined);
  };
  if (options.signal?.aborted) controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  emit({ type: 'round_start', at: round.createdAt });
  let state: RoundState = 'finished';
  let scrub = (text: string) => text;
  let readAhead: (() => Promise<void>) | null = null;
  try {
    if (!endpoint.configured) throw new RoundOver(said('chat_err_not_configured'), 'failed');
    if (!question.trim()) throw new RoundOver(said('chat_err_empty_question'), 'failed');
    const connection = endpoint.connection({ onNote: (kind, message) => emit({ type: 'assistant_note', kind, message }), session: sessionId });
    scrub = connection.scrub;
    const ctx: ErrorContext = { origin: connection.origin, model: connection.model, scrub };
    const client = createClient(connection);

    for (const file of files) await engine.writeFile(sessionId, file.name, file.data);
    if (files.length) emit({ type: 'files_attached', names: files.map((f) => f.name) });
    if (signal.aborted) throw new Stopped();

    const [workspace, variables, sessionVars, earlier] = await Promise.all([
      engine.listFiles(sessionId),
      engine.listVariables(sessionId),
      engine.getSessionVars(sessionId),
      history.list<Round>(),
    ]);
    const snapshot = { files: workspace, variables, sessionVars, packageIndexUrl: engine.getSettings().packageIndexUrl };
    let channel: CodeChannel = 'tools';
    const small = connection.small;
    const earlierRounds = earlier.filter((r) => r.seq < round.seq);
    // A small model (in this browser) reads every prompt token slowly, so its prompt only ever
    // grows: a system message that is the same everywhere, the earlier rounds word for word, and
    // the session's state with the question. Reading then resumes where the last request ended.
    const budgets = small && {
      contextTokens: Math.min(settings.contextTokens, small.contextTokens),
      memoryTokens: Math.min(settings.memoryTokens, small.memoryTokens),
    };
    // The model answers in the language PyTabs is shown in when the question is sent.
    const locale = currentLocale();
    const contextOf = (on: CodeChannel) => (small ? smallModelSystem(locale) : buildContext(snapshot, on, settings.contextTokens, locale));
    const memory: ChatCompletionMessageParam[] = budgets ? buildVerbatimMemory(earlierRounds, budgets.memoryTokens) : buildMemory(earlierRounds, settings.memoryTokens);
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: contextOf(channel) },
      ...memory,
      { role: 'user', content: budgets ? smallModelQuestion(snapshot, question, budgets.contextTokens, locale) : question },
    ];
    const asked = messages.length - 1;
    if (budgets) {
      readAhead = () => readNextQuestion(engine, sessionId, createClient(endpoint.connection({ session: sessionId, background: true })), connection.model, budgets, currentLocale());
    }
    const recordSent = () => {
      const sent = messages.flatMap(sentMessage);
      emit({ type: 'context_sent', messages: sent, tokens: estimateTokens(sent.map((m) => m.content).join('\n')), tools: channel === 'tools' ? TOOL_NAMES : [] });
    };
    recordSent();

    const loop = new RoundLoop(engine, sessionId, settings, autoRun, options.approve, emit, changed, signal, (on) => (running = on));

    const requestTurn = async (step: number): Promise<ModelTurn> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await streamTurn(
            client,
            { model: connection.model, messages, tools: channel === 'tools' ? TOOLS : undefined, step },
            ctx,
            { onText: (text) => emit({ type: 'assistant_text', step, text }) },
            signal,
          );
        } catch (error) {
          if (signal.aborted) throw new Stopped();
          if (!(error instanceof TurnError)) throw error;
          if (error.error.kind === 'aborted') throw new Stopped();
          if (error.error.kind === 'tools_unsupported' && channel === 'tools' && !error.shown) {
            channel = 'fenced';
            messages[0] = { role: 'system', content: contextOf(channel) };
            emit({ type: 'assistant_note', kind: 'no_tools', message: said('chat_note_no_tools_asked_again') });
            recordSent();
            attempt = 0;
            continue;
          }
          const wait = error.shown ? null : retryDelay(error.error, attempt, retry);
          if (wait === null) {
            if (!(error.error.retryable && !error.shown && attempt > 1)) throw error.error;
            throw new AssistantError(error.error.kind, said('chat_err_still_failed', { error: error.error.said, retries: attempt - 1 }), error.error.status);
          }
          emit({
            type: 'assistant_note',
            kind: 'retry',
            message: said('chat_note_retry', { error: error.error.said, seconds: Math.max(1, Math.round(wait / 1000)), attempt, retries: retry.retries }),
          });
          try {
            await sleep(wait, signal);
          } catch {
            throw new Stopped();
          }
        }
      }
    };

    for (let step = 0; ; step++) {
      if (step >= settings.maxTurns) {
        throw new RoundOver(said('chat_limit_turns', { count: settings.maxTurns }), 'finished', 'limit');
      }
      const turn = await requestTurn(step);
      if (turn.usage) emit({ type: 'usage', step, ...turn.usage });
      if (turn.finishReason === 'length') {
        throw new RoundOver(said('chat_err_length'), 'failed');
      }
      if (turn.toolCalls.length) {
        loop.usedTools = true;
        messages.push({
          role: 'assistant',
          content: turn.text || null,
          tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
        });
        for (const call of turn.toolCalls) {
          const content = await loop.toolCall(call, step);
          messages.push({ role: 'tool', tool_call_id: call.id, content });
          emit({ type: 'tool_result', step, callId: call.id, name: call.name, content });
          loop.checkLimits();
        }
        continue;
      }
      const blocks = loop.usedTools ? [] : fencedPython(turn.text);
      if (!blocks.length) {
        if (small) emit({ type: 'turns', messages: [...(messages.slice(asked) as TurnMessage[]), { role: 'assistant', content: turn.text }] });
        break;
      }
      if (channel === 'tools') {
        channel = 'fenced';
        emit({ type: 'assistant_note', kind: 'no_tools', message: said('chat_note_fenced') });
      }
      messages.push({ role: 'assistant', content: turn.text });
      const outputs: string[] = [];
      for (const [i, code] of blocks.entries()) {
        const callId = `fenced_${step}_${i}`;
        const content = await loop.runCode(callId, code, step, 'fenced');
        outputs.push(blocks.length > 1 ? `Block ${i + 1}:\n${content}` : content);
        emit({ type: 'tool_result', step, callId, name: 'run_python', content });
        loop.checkLimits();
        if (loop.lastFailed) break;
      }
      // to the model: the turn that hands it its code's output.
      messages.push({
        role: 'user',
        content: `Output of your code:\n\n${outputs.join('\n\n')}\n\nGo on; when you have the answer, reply without a python block.`,
      });
    }
  } catch (error) {
    if (error instanceof Stopped || signal.aborted) {
      state = 'stopped';
      emit({ type: 'assistant_note', kind: 'stopped', message: said('chat_note_stopped') });
    } else if (error instanceof RoundOver) {
      state = error.state;
      if (error.note) emit({ type: 'assistant_note', kind: error.note, message: error.said });
      else emit({ type: 'round_error', message: error.said });
    } else {
      state = 'failed';
      // PyTabs' own errors are kept said (their parameters were scrubbed where they quote a server); others as they came.
      emit({ type: 'round_error', message: error instanceof SaidError ? error.said : scrub(error instanceof Error ? error.message : String(error)) });
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }

  const finished = await finishRound(round, state, t0, transcript, history, emit, (error) => (error instanceof SaidError ? error.said : scrub(error instanceof Error ? error.message : String(error))));
  if (finished.state === 'finished' && readAhead) void readAhead().catch(() => undefined);
  return finished;
}

/**
 * The model in this browser, as the person starts writing a question in `sessionId`: loads it
 * and has it read the question's prompt up to the question (readNextQuestion), so that a
 * question typed over half a minute meets a model that is loaded and has read that start. Not a
 * background request: a question sent before it ends begins the same way, so it waits for that
 * reading and reuses it. An endpoint elsewhere has nothing to load: nothing is sent.
 */
export async function prepareAsk(engine: AssistantEngine, sessionId: string, options: Pick<AskOptions, 'endpoint'> = {}): Promise<void> {
  const endpoint = options.endpoint ?? (await assistantEndpoint(engine.settingsStore));
  if (!endpoint.configured || endpoint.settings.provider !== 'local') return;
  const connection = endpoint.connection({ session: sessionId });
  const { settings } = endpoint;
  const { small } = connection;
  if (!small) return;
  const budgets = { contextTokens: Math.min(settings.contextTokens, small.contextTokens), memoryTokens: Math.min(settings.memoryTokens, small.memoryTokens) };
  await readNextQuestion(engine, sessionId, createClient(connection), connection.model, budgets, currentLocale());
}

/**
 * A small model, after a round: the session's next question's prompt up to the question itself
 * (the earlier rounds, this one included, and the session's state now), sent for one token, so
 * that the model reads it while the person reads the answer, and the next Ask reads only its
 * question. It is the next prompt's start only if nothing changes in between (a Code round
 * does): llama.cpp then reuses what still matches.
 */
async function readNextQuestion(
  engine: AssistantEngine,
  sessionId: string,
  client: ReturnType<typeof createClient>,
  model: string,
  budgets: { contextTokens: number; memoryTokens: number },
  locale: Locale,
): Promise<void> {
  const [files, variables, sessionVars, rounds] = await Promise.all([
    engine.listFiles(sessionId),
    engine.listVariables(sessionId),
    engine.getSessionVars(sessionId),
    engine.history(sessionId).list<Round>(),
  ]);
  const snapshot = { files, variables, sessionVars, packageIndexUrl: engine.getSettings().packageIndexUrl };
  await client.chat.completions.create({
    model,
    messages: [
      { role: 'system', content: smallModelSystem(locale) },
      ...buildVerbatimMemory(rounds, budgets.memoryTokens),
      { role: 'user', content: smallModelQuestion(snapshot, '', budgets.contextTokens, locale) },
    ],
    tools: TOOLS,
    max_tokens: 1,
  });
}

/** A message as "What was sent" shows it: a tool call and a tool's output in words. */
function sentMessage(message: ChatCompletionMessageParam): SentMessage[] {
  // to the model: a tool's output as the model read it, in the conversation's language (English) that "What was sent" shows as it was.
  if (message.role === 'tool') return [{ role: 'user', content: `Output of the tool:\n${typeof message.content === 'string' ? message.content : ''}` }];
  if (message.role === 'assistant' && message.tool_calls?.length) {
    const calls = message.tool_calls.flatMap((c) => (c.type === 'function' ? [`${c.function.name}(${c.function.arguments})`] : []));
    return [{ role: 'assistant', content: [typeof message.content === 'string' ? message.content : '', ...calls].filter(Boolean).join('\n') }];
  }
  if ((message.role === 'system' || message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  return [];
}

/** Fenced python blocks of a reply (none when it has no fence: prose is not code). */
function fencedPython(text: string): string[] {
  if (!/^ {0,3}(`{3,}|~{3,})/m.test(text)) return [];
  return splitMessage(text).map((b) => b.code);
}

/** One round's code cards, runs and limits. */
class RoundLoop {
  private block = 0;
  private runs = 0;
  private failuresInRow = 0;
  private readonly errors = new Map<string, number>();
  /** The model has called a tool in this round: its later text is its answer, not code to run. */
  usedTools = false;
  lastFailed = false;
  private over: RoundOver | null = null;

  constructor(
    private readonly engine: AssistantEngine,
    private readonly sessionId: string,
    private readonly settings: AssistantSettings,
    private readonly autoRun: () => boolean,
    private readonly approve: AskOptions['approve'],
    private readonly emit: (event: RoundEvent) => void,
    private readonly changed: (card: CodeCard) => void,
    private readonly signal: AbortSignal,
    private readonly setRunning: (on: boolean) => void,
  ) {}

  /** Ends the round when a limit was reached by the last call. */
  checkLimits(): void {
    if (this.over) throw this.over;
  }

  async toolCall(call: ToolCallRequest, step: number): Promise<string> {
    if (this.signal.aborted) throw new Stopped();
    if (call.name === 'run_python') {
      const parsed = parseRunArguments(call.arguments);
      if ('error' in parsed) return this.badCall(said('chat_note_bad_arguments', { error: parsed.error }));
      return this.runCode(call.id, parsed.code, step, 'tool');
    }
    if (call.name === 'list_variables') {
      this.failuresInRow = 0;
      return clip(describeVariables(await this.engine.listVariables(this.sessionId)), TOOL_RESULT_LIMIT);
    }
    if (call.name === 'list_files') {
      this.failuresInRow = 0;
      return clip(describeFiles(await this.engine.listFiles(this.sessionId)), TOOL_RESULT_LIMIT);
    }
    return this.badCall(said('chat_note_no_such_tool', { name: clip(call.name, 100), tools: TOOL_NAMES.join(', ') }));
  }

  /** The note the person sees, in their language; the model is told in English where the page has English (tellInEnglish), as the rest of its prompt. */
  private badCall(note: Said): string {
    this.emit({ type: 'assistant_note', kind: 'bad_arguments', message: note });
    this.failed();
    return tellInEnglish(note);
  }

  private failed(): void {
    this.lastFailed = true;
    this.failuresInRow++;
    if (this.failuresInRow >= this.settings.maxFailedRuns) {
      this.over = new RoundOver(said('chat_limit_failures', { count: this.failuresInRow }), 'failed', 'limit');
    }
  }

  /** Shows a code card, asks for approval when needed, runs it, and returns what the model hears. */
  async runCode(callId: string, proposed: string, step: number, source: 'tool' | 'fenced'): Promise<string> {
    if (this.runs >= this.settings.maxRuns) {
      throw new RoundOver(said('chat_limit_runs', { count: this.settings.maxRuns }), 'finished', 'limit');
    }
    const card: CodeCard = { type: 'code_card', block: this.block++, step, callId, source, proposed, code: proposed, status: 'proposed' };
    this.emit(card);
    if (!this.autoRun() && this.approve) {
      const decision = await untilAborted(this.approve({ ...card }, this.signal), this.signal);
      if (decision.action === 'skip') {
        card.status = 'skipped';
        this.changed(card);
        this.lastFailed = false;
        // to the model: the tool's answer when the person declined the code.
        const why = decision.reason?.trim() ? ` They said: ${clip(decision.reason.trim(), 500)}` : '';
        // to the model: as above.
        return `The person chose not to run this code.${why} Do not run it again unless they ask; answer with what you know, or propose something else.`;
      }
      if (decision.action === 'edit') {
        card.code = decision.code;
        card.status = 'edited';
      } else card.status = 'approved';
      this.changed(card);
    }
    if (this.signal.aborted) throw new Stopped();
    const output = new RunOutput();
    const block = card.block;
    this.emit({ type: 'code_start', block, total: 1, code: card.code });
    let result: RunResult;
    this.setRunning(true);
    try {
      result = await this.engine.run(
        this.sessionId,
        card.code,
        (e) => {
          output.add(e);
          this.emit({ ...e, block });
        },
        { noInput: ASSISTANT_INPUT },
      );
    } finally {
      this.setRunning(false);
    }
    this.runs++;
    if (result.result) this.emit({ type: 'result', block, bundle: result.result });
    if (result.error) this.emit({ type: 'exec_error', block, error: result.error });
    if (result.filesChanged.length || result.filesDeleted.length) {
      this.emit({ type: 'files_written', block, changed: result.filesChanged, deleted: result.filesDeleted });
    }
    this.emit({
      type: 'code_end',
      block,
      durationMs: result.durationMs,
      notPersisted: result.notPersisted,
      ...(result.commitSaid ? { commitError: result.commitSaid } : {}),
    });
    card.status = 'ran';
    this.changed(card);
    if (this.signal.aborted || (result.error && STOPPED.has(result.error.ename))) throw new Stopped();
    // to the model: what its code gave, as a tool's output.
    const summary = card.code !== proposed ? `(The person edited your code before it ran; it ran as:\n${card.code})\n\n${summarizeRun(result, output)}` : summarizeRun(result, output);
    if (result.status === 'error') {
      const key = `${result.error?.ename}: ${result.error?.evalue}`;
      const seen = (this.errors.get(key) ?? 0) + 1;
      this.errors.set(key, seen);
      this.failed();
      if (!this.over && seen >= this.settings.maxSameError) {
        this.over = new RoundOver(said('chat_limit_same_error', { count: seen, error: clip(key, 200) }), 'failed', 'limit');
      }
    } else {
      this.lastFailed = false;
      this.failuresInRow = 0;
    }
    return clip(summary, TOOL_RESULT_LIMIT);
  }
}
