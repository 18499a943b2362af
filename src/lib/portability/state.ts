import type { VariableRecord } from '../storage/db';
import { formatBytes } from '../i18n/format';
import { said } from '../i18n/said';
import { ImportError } from './errors';
import { encodeJson, finite, flag, integer, list, parseJson, record, text } from './checks';
import { MAX_VARIABLES } from './limits';
import { quoteName } from '../quote-name';

export const VARIABLES = 'state/variables.json';
export const REPLAY = 'state/replay.json';
export const PICKLE_ENTRY = /^state\/pickles\/(\d{1,9})\.pickle$/;
const pickleEntry = (n: number) => `state/pickles/${n}.pickle`;
const MAX_REPLAY_SOURCE = 1024 * 1024;
/** A Python identifier (PEP 3131, near enough to refuse anything that is not a name). */
const IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u;

/** A session's saved variables: what restores them when its Python starts (the replay log, then the pickles). */
export interface SavedState {
  /** Metadata without the pickle digest: the worker computes its own rather than trust a file's. */
  variables: Omit<VariableRecord, 'sessionId' | 'hash'>[];
  pickles: { name: string; data: Uint8Array }[];
  replay: string[];
}

export const isEmptyState = (state: SavedState) => !state.variables.length && !state.replay.length;

/** The state/ entries: variable metadata, the replay log in order, one entry per pickle. */
export function stateEntries(state: SavedState): Map<string, Uint8Array> {
  const entries = new Map<string, Uint8Array>();
  const pickles = new Map(state.pickles.map((p) => [p.name, p.data]));
  const variables = state.variables.map((meta, i) => {
    const data = pickles.get(meta.name);
    if (!data) return meta;
    entries.set(pickleEntry(i), data);
    return { ...meta, pickle: pickleEntry(i) };
  });
  entries.set(VARIABLES, encodeJson({ variables }));
  entries.set(REPLAY, encodeJson({ replay: state.replay }));
  return entries;
}

const KINDS = new Set(['pickle', 'replay', 'none']);

/**
 * Reads state/ from an archive's entries, within this device's limits: each pickle at most
 * `variableBytes`, all of them at most `sessionBytes`. Null when the archive has no state.
 */
export function readState(entries: Map<string, Uint8Array>, limits: { variableBytes: number; sessionBytes: number }): SavedState | null {
  const listed = entries.get(VARIABLES);
  const replayed = entries.get(REPLAY);
  if (!listed && !replayed) {
    if ([...entries.keys()].some((name) => PICKLE_ENTRY.test(name))) throw new ImportError(said('lib_state_no_list', { file: VARIABLES }));
    return null;
  }
  const variablesFile = listed ? record(parseJson(listed, VARIABLES), VARIABLES) : { variables: [] };
  const replayFile = replayed ? record(parseJson(replayed, REPLAY), REPLAY) : { replay: [] };
  const replay = list(replayFile.replay, `${REPLAY} "replay"`, MAX_VARIABLES).map((source, i) =>
    text(source, `${REPLAY} statement ${i + 1}`, MAX_REPLAY_SOURCE),
  );
  const names = new Set<string>();
  const pickles: SavedState['pickles'] = [];
  let pickled = 0;
  const variables = list(variablesFile.variables, `${VARIABLES} "variables"`, MAX_VARIABLES).map((value, i) => {
    const what = `${VARIABLES} variable ${i + 1}`;
    const v = record(value, what);
    const name = text(v.name, `${what} "name"`, 255);
    if (!IDENTIFIER.test(name)) throw new ImportError(said('lib_state_not_python_name', { what }));
    if (names.has(name)) throw new ImportError(said('lib_state_twice', { file: VARIABLES, name: quoteName(name) }));
    names.add(name);
    const kind = text(v.kind, `${what} "kind"`, 10) as SavedState['variables'][number]['kind'];
    if (!KINDS.has(kind)) throw new ImportError(said('lib_state_bad_kind', { what, kind }));
    const meta: SavedState['variables'][number] = {
      name,
      type: text(v.type, `${what} "type"`, 1000),
      sizeBytes: integer(Math.round(finite(v.sizeBytes, `${what} "sizeBytes"`)), `${what} "sizeBytes"`),
      preview: text(v.preview, `${what} "preview"`, 10_000),
      persisted: flag(v.persisted, `${what} "persisted"`),
      kind,
    };
    if (v.reason !== undefined && v.reason !== null) meta.reason = text(v.reason, `${what} "reason"`, 10_000);
    if (kind !== 'pickle') {
      if (v.pickle !== undefined) throw new ImportError(said('lib_state_pickle_kind', { what }));
      return meta;
    }
    const entry = text(v.pickle, `${what} "pickle"`, 100);
    const data = PICKLE_ENTRY.test(entry) ? entries.get(entry) : undefined;
    if (!data) throw new ImportError(said('lib_state_missing_pickle', { what, entry }));
    if (data.byteLength > limits.variableBytes) {
      throw new ImportError(said('lib_state_variable_too_big', { name: quoteName(name), size: formatBytes(data.byteLength), max: formatBytes(limits.variableBytes) }));
    }
    pickled += data.byteLength;
    pickles.push({ name, data });
    return { ...meta, sizeBytes: data.byteLength, persisted: true };
  });
  if (pickled > limits.sessionBytes) {
    throw new ImportError(said('lib_state_session_too_big', { size: formatBytes(pickled), max: formatBytes(limits.sessionBytes) }));
  }
  return { variables, pickles, replay };
}
