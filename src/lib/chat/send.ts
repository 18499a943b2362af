import { endedByStop } from '../sessions/host';
import type { SessionManager } from '../sessions/manager';
import type { TraceOptions } from '../worker-api';
import { splitMessage } from './blocks';
import { appendEvent, finishRound, newRound, OutputTranscript } from './round';
import { terminalText } from './terminal';
import type { Attachment, Round, RoundEvent, RoundState } from './types';
import type { Text } from '../i18n/text';
import { said, SaidError } from '../i18n/said';

/** The part of the session engine a message needs. */
export type ChatEngine = Pick<SessionManager, 'history' | 'run' | 'writeFile'>;

export interface SendOptions {
  /** Written to the session's workspace before any code runs. */
  files?: Attachment[];
  /** Called with each event as history records it, and the round so far. */
  onEvent?: (event: RoundEvent, round: Round) => void;
  /** Step through: record each block's steps (as SessionManager.trace does), kept in the round as a `trace` event. */
  trace?: TraceOptions;
}

/** PyTabs' own errors stay said, to be told in the reader's language; others as they came. */
function describe(error: unknown): Text {
  if (error instanceof SaidError) return error.said;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs a message in a session and returns the finished round. The round is stored
 * as soon as it starts (so a reload mid-run still shows the message) and again when
 * it ends. Blocks run in order; the first error or stop ends the round, like
 * "run all" in a notebook.
 */
export async function sendMessage(
  engine: ChatEngine,
  sessionId: string,
  message: string,
  { files = [], onEvent, trace }: SendOptions = {},
): Promise<Round> {
  const t0 = performance.now();
  const history = engine.history(sessionId);
  const round = await history.insert((seq) => newRound(sessionId, seq, message, files.map((f) => f.name)));
  const transcript = new OutputTranscript();
  const emit = (event: RoundEvent) => {
    // The download reads as the terminal did: the typed lines too.
    const text = terminalText(event);
    if (text) transcript.add(text);
    const recorded = appendEvent(round, event);
    if (recorded) onEvent?.(recorded, round);
  };
  emit({ type: 'round_start', at: round.createdAt });

  let state: RoundState = 'finished';
  try {
    for (const file of files) await engine.writeFile(sessionId, file.name, file.data);
    if (files.length) emit({ type: 'files_attached', names: files.map((f) => f.name) });
    const blocks = splitMessage(message);
    if (!blocks.length && !files.length) emit({ type: 'round_error', message: said('chat_no_code') });
    for (const [block, { code }] of blocks.entries()) {
      emit({ type: 'code_start', block, total: blocks.length, code });
      // With `trace` this is SessionManager.trace: the same run, recording its steps.
      const result = await engine.run(sessionId, code, (e) => emit({ ...e, block }), trace ? { trace } : undefined);
      if (result.trace) emit({ type: 'trace', block, trace: result.trace });
      if (result.result) emit({ type: 'result', block, bundle: result.result });
      if (result.error) emit({ type: 'exec_error', block, error: result.error });
      if (result.filesChanged.length || result.filesDeleted.length) {
        emit({ type: 'files_written', block, changed: result.filesChanged, deleted: result.filesDeleted });
      }
      emit({
        type: 'code_end',
        block,
        durationMs: result.durationMs,
        notPersisted: result.notPersisted,
        ...(result.commitSaid ? { commitError: result.commitSaid } : {}),
      });
      if (result.status === 'error') {
        state = endedByStop(result.error?.ename) ? 'stopped' : 'failed';
        break;
      }
    }
  } catch (error) {
    state = 'failed';
    emit({ type: 'round_error', message: describe(error) });
  }

  return finishRound(round, state, t0, transcript, history, emit, describe);
}

