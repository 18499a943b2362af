import type { Round, RoundEvent } from '../chat/types';
import { ImportError } from './errors';
import { said } from '../i18n/said';
import { encodeJson, finite, integer, list, parseJson, record, text } from './checks';
import { MAX_EVENTS, MAX_MESSAGE_CHARS, MAX_ROUNDS } from './limits';
import { checkTrace } from './trace-check';

export const HISTORY = 'history.json';
const FORMAT = 'pytabs-history';
const VERSION = 1;
/** A round's whole output (`fullOutput`, a Blob in storage) travels as an entry of its own. */
export const outputEntry = (seq: number) => `history/output-${seq}.txt`;
export const OUTPUT_ENTRY = /^history\/output-(\d{1,9})\.txt$/;

/** A round as history.json holds it: the stored round, without its session, and its full output by reference. */
type HistoryRound = Omit<Round, 'id' | 'sessionId' | 'fullOutput'> & { fullOutput?: { entry: string; type: string } };

/**
 * history.json: the rounds exactly as stored, so that an import brings back what the chat
 * showed; fields this version does not know (a newer kind of round) are kept as they are.
 */
export async function historyEntries(rounds: Round[]): Promise<Map<string, Uint8Array>> {
  const entries = new Map<string, Uint8Array>();
  const out: HistoryRound[] = [];
  for (const { id: _, sessionId: __, fullOutput, ...round } of rounds) {
    const stored: HistoryRound = { ...round };
    if (fullOutput) {
      const entry = outputEntry(round.seq);
      entries.set(entry, new Uint8Array(await fullOutput.arrayBuffer()));
      stored.fullOutput = { entry, type: fullOutput.type };
    }
    out.push(stored);
  }
  entries.set(HISTORY, encodeJson({ format: FORMAT, version: VERSION, rounds: out }));
  return entries;
}

const STATES = new Set(['running', 'finished', 'failed', 'stopped']);

/** Field types of the events the chat shows, so a hostile file cannot hand the page a malformed one. */
const EVENT_FIELDS: Record<string, Record<string, 'string' | 'number' | 'object' | 'array' | 'boolean'>> = {
  round_start: { at: 'number' },
  files_attached: { names: 'array' },
  code_start: { block: 'number', total: 'number', code: 'string' },
  stdout: { block: 'number', text: 'string' },
  stderr: { block: 'number', text: 'string' },
  input: { block: 'number', request: 'string', prompt: 'string', text: 'string' },
  status: { block: 'number', text: 'string' },
  display: { block: 'number', bundle: 'object' },
  result: { block: 'number', bundle: 'object' },
  exec_error: { block: 'number', error: 'object' },
  files_written: { block: 'number', changed: 'array', deleted: 'array' },
  code_end: { block: 'number', durationMs: 'number', notPersisted: 'array' },
  truncated: { block: 'number', what: 'string', limit: 'number' },
  round_error: { message: 'string' },
  trace: { block: 'number', trace: 'object' },
  round_end: { durationMs: 'number', state: 'string' },
};

/** Fields some events may lack (older rounds did), of these types when present. */
const OPTIONAL_FIELDS: Record<string, Record<string, string>> = {
  truncated: { total: 'number', tail: 'string' },
  input: { password: 'boolean' },
};

function kindOf(value: unknown): string {
  return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
}

function checkEvent(value: unknown, what: string): RoundEvent {
  const event = record(value, what);
  const type = text(event.type, `${what} "type"`, 100);
  const fields = EVENT_FIELDS[type];
  // A kind of event this version does not know (from a newer PyTabs) is kept; the chat skips it.
  if (!fields) return event as RoundEvent;
  for (const [field, kind] of Object.entries(fields)) {
    if (kindOf(event[field]) !== kind) throw new ImportError(said('lib_history_no_field', { what, type, field }));
  }
  for (const [field, kind] of Object.entries(OPTIONAL_FIELDS[type] ?? {})) {
    if (event[field] !== undefined && kindOf(event[field]) !== kind) throw new ImportError(said('lib_history_bad_field', { what, type, field }));
  }
  if (type === 'display' || type === 'result') {
    const bundle = event.bundle as Record<string, unknown>;
    if (!Object.values(bundle).every((v) => typeof v === 'string')) throw new ImportError(said('lib_history_output_not_text', { what }));
  }
  if (type === 'trace') checkTrace(event.trace, `${what} step-through`);
  if (type === 'code_end' && event.commitError !== undefined) checkCommitError(event.commitError, `${what} "commitError"`);
  if (type === 'exec_error') {
    const error = event.error as Record<string, unknown>;
    for (const field of ['ename', 'evalue', 'traceback']) text(error[field], `${what} error "${field}"`, MAX_MESSAGE_CHARS);
    if (error.line !== undefined) integer(error.line, `${what} error "line"`, 1);
    if (error.explanation !== undefined) {
      for (const part of list(error.explanation, `${what} error "explanation"`, 5)) checkExplained(part, `${what} error "explanation"`, 1);
    }
  }
  return event as RoundEvent;
}

/** Why a run's changes were not saved: its said text (the browser's error its one parameter), or English words kept before PyTabs said it. */
function checkCommitError(value: unknown, what: string): void {
  if (typeof value === 'string') return void text(value, what, MAX_MESSAGE_CHARS);
  const commit = record(value, what);
  if (commit.key === 'w3_commit_quota' && commit.params === undefined) return;
  if (commit.key !== 'w3_commit_failed') throw new ImportError(said('lib_history_bad_key', { what }));
  const params = record(commit.params, `${what} "params"`);
  if (Object.keys(params).join() !== 'error') throw new ImportError(said('lib_history_bad_param', { what }));
  text(params.error, `${what} "params"`, MAX_MESSAGE_CHARS);
}

/** One said text of an error's explanation (pytabs/explain.py): an explain_ key, its parameters text, numbers or (one level down) said texts. */
function checkExplained(value: unknown, what: string, depth: number): void {
  const explained = record(value, what);
  if (!/^explain_\w{1,60}$/.test(text(explained.key, `${what} "key"`, 100))) throw new ImportError(said('lib_history_bad_key', { what }));
  if (explained.params === undefined) return;
  for (const param of Object.values(record(explained.params, `${what} "params"`))) {
    if (typeof param === 'string') text(param, `${what} "params"`, MAX_MESSAGE_CHARS);
    else if (typeof param === 'number') finite(param, `${what} "params"`);
    else if (depth > 0) checkExplained(param, what, depth - 1);
    else throw new ImportError(said('lib_history_bad_param', { what }));
  }
}

/** Reads history.json into rounds of `sessionId`, with their full outputs from `entries`. */
export function readHistory(bytes: Uint8Array, sessionId: string, entries: Map<string, Uint8Array>): Round[] {
  const file = record(parseJson(bytes, HISTORY), HISTORY);
  if (file.format !== FORMAT) throw new ImportError(said('lib_history_not_history', { file: HISTORY, format: FORMAT }));
  const version = integer(file.version, `${HISTORY} "version"`, 1);
  if (version > VERSION) throw new ImportError(said('asg_file_newer', { what: HISTORY, version }));
  const seen = new Set<number>();
  return list(file.rounds, `${HISTORY} "rounds"`, MAX_ROUNDS).map((value, i) => {
    const what = `${HISTORY} round ${i + 1}`;
    const stored = record(value, what);
    const seq = integer(stored.seq, `${what} "seq"`, 1, 1e9);
    if (seen.has(seq)) throw new ImportError(said('lib_history_repeats', { what, seq }));
    seen.add(seq);
    const events = list(stored.events, `${what} "events"`, MAX_EVENTS).map((e, j) => checkEvent(e, `${what} event ${j + 1}`));
    const files = list(stored.files ?? [], `${what} "files"`, 10_000).map((f) => text(f, `${what} file name`, 1000));
    const state = text(stored.state, `${what} "state"`, 20);
    if (!STATES.has(state)) throw new ImportError(said('lib_history_bad_state', { what, state }));
    const round: Round = {
      ...(stored as Record<string, unknown>),
      id: `${sessionId}:${seq}`,
      sessionId,
      seq,
      createdAt: finite(stored.createdAt, `${what} "createdAt"`),
      message: text(stored.message, `${what} "message"`, MAX_MESSAGE_CHARS),
      files,
      // A round cut off mid-run where it was made never ends here.
      state: state === 'running' ? 'stopped' : (state as Round['state']),
      events,
      outputChars: finite(stored.outputChars ?? 0, `${what} "outputChars"`),
      richChars: finite(stored.richChars ?? 0, `${what} "richChars"`),
      fullOutput: undefined,
    };
    if (stored.durationMs !== undefined) round.durationMs = finite(stored.durationMs, `${what} "durationMs"`);
    if (stored.importedFrom !== undefined) round.importedFrom = text(stored.importedFrom, `${what} "importedFrom"`, 1000);
    if (stored.fullOutput !== undefined) {
      const ref = record(stored.fullOutput, `${what} "fullOutput"`);
      const entry = text(ref.entry, `${what} "fullOutput.entry"`, 100);
      const data = OUTPUT_ENTRY.test(entry) ? entries.get(entry) : undefined;
      if (!data) throw new ImportError(said('lib_history_missing_output', { what, entry }));
      const type = typeof ref.type === 'string' ? ref.type.slice(0, 100) : 'text/plain;charset=utf-8';
      round.fullOutput = new Blob([data as Uint8Array<ArrayBuffer>], { type });
    } else {
      delete round.fullOutput;
    }
    return round;
  });
}
