/**
 * What an Ask round records besides the runs themselves (which use the Code round's
 * code_start / stdout / result / exec_error / code_end events, with `block` the code card's
 * number in the round). Part of `RoundEvent` (chat/types.ts).
 */

import type { Said } from '../i18n/said';

/** A message as sent to the model, for "what was sent". */
export interface SentMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * A message of a round's conversation with the model as the `openai` client sends it (the
 * question, the model's tool calls, the tools' outputs, the answer): plain JSON, so it is stored.
 */
export type TurnMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** Where a code card is in its life; `ran` also when the run failed (its exec_error says how). */
export type CodeCardStatus = 'proposed' | 'approved' | 'edited' | 'skipped' | 'ran';

export type AssistantNoteKind =
  /** The person stopped the round. */
  | 'stopped'
  /** A per-round limit ended the round. */
  | 'limit'
  /** A request failed and is being sent again. */
  | 'retry'
  /** The model's tool arguments were not JSON; it was told. */
  | 'bad_arguments'
  /** The model takes no tools: it is asked for fenced python blocks instead. */
  | 'no_tools'
  /** The model in this browser is being loaded for this question. */
  | 'model_loading'
  /** Part of the prompt was left out to fit the model's context (which part, in the message). */
  | 'context_cut';

export type AssistantEvent =
  /** Exactly what the first request of the round sent: system text with the context, memory, question. */
  | { type: 'context_sent'; messages: SentMessage[]; tokens: number; tools: string[] }
  /** The model's text; consecutive pieces of one step are merged in the stored round. */
  | { type: 'assistant_text'; step: number; text: string }
  /**
   * Code the model asked to run. Stored once and updated in place as its status moves on; each
   * change is emitted again (the same card, found by `callId`). `code` is what runs (after an
   * edit), `proposed` what the model wrote.
   */
  | {
      type: 'code_card';
      block: number;
      step: number;
      callId: string;
      source: 'tool' | 'fenced';
      proposed: string;
      code: string;
      status: CodeCardStatus;
    }
  /** What a tool call gave back to the model (for run_python: the run's output, condensed). */
  | { type: 'tool_result'; step: number; callId: string; name: string; content: string }
  /**
   * Tokens of one request, when the endpoint reports them; `cachedTokens`: of the prompt's, those
   * whose state the model kept from an earlier request, so that it read only the rest.
   */
  | { type: 'usage'; step: number; promptTokens: number; completionTokens: number; totalTokens: number; cachedTokens?: number }
  /** Said; plain words in rounds kept before texts were (chat/types.ts Told). */
  | { type: 'assistant_note'; kind: AssistantNoteKind; message: string | Said }
  /**
   * A small model's round, from its question to its answer, word for word as sent: its next
   * question repeats it unchanged (memory.ts), so the model reads only what is new.
   */
  | { type: 'turns'; messages: TurnMessage[] };

export type CodeCard = Extract<AssistantEvent, { type: 'code_card' }>;
