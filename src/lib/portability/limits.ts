import { FULL_OUTPUT_CAP } from '../chat/round';

/**
 * What an import accepts, beyond the session limits in Settings. An archive is read whole
 * into memory, so each entry and the whole are capped while they are unpacked, whatever
 * sizes the archive declares.
 */

/** The largest file to import (packed) and the most all of its entries may unpack to. */
export const MAX_IMPORT_BYTES = 1024 ** 3;
/** Entries of one archive: a session's files, pickles and full outputs. */
export const MAX_ENTRIES = 20_000;
export const MAX_MANIFEST_BYTES = 1024 * 1024;
/** history.json, history.ipynb, or an imported notebook. */
export const MAX_HISTORY_BYTES = 256 * 1024 ** 2;
/** One round's whole stdout and stderr (characters, as UTF-8 up to 4 bytes each). */
export const MAX_FULL_OUTPUT_BYTES = 4 * FULL_OUTPUT_CAP;
/** state/variables.json and state/replay.json. */
export const MAX_STATE_LIST_BYTES = 16 * 1024 ** 2;
/** Rounds of one session's history, cells of one notebook, events of one round. */
export const MAX_ROUNDS = 100_000;
export const MAX_EVENTS = 100_000;
/** Saved variables and replayed statements of one session. */
export const MAX_VARIABLES = 10_000;
/** A message or a code cell, in characters. */
export const MAX_MESSAGE_CHARS = 10 * 1024 ** 2;
