import type { MimeBundle, RunError, Trace } from '../worker-api';
import type { AssistantEvent } from '../assistant/events';
import type { TurtlePicture } from '../turtle/picture';
import type { Text } from '../i18n/text';

/**
 * What one message produced, in order (TaskWeaver's round/post shape, flattened).
 * `block` is the index of the fenced code block the event belongs to.
 */
export type RoundEvent =
  | { type: 'round_start'; at: number }
  | { type: 'files_attached'; names: string[] }
  | { type: 'code_start'; block: number; total: number; code: string }
  | { type: 'stdout' | 'stderr'; block: number; text: string }
  /** A line the person answered to input() (worker-api.ts InputEvent): shown after its prompt, never part of stdout. */
  | { type: 'input'; block: number; request: string; prompt: string; text: string; password?: boolean }
  /** Progress from the runtime while a block runs, e.g. a package being loaded. */
  | { type: 'status'; block: number; text: string }
  | { type: 'display'; block: number; bundle: MimeBundle }
  /** A turtle screen's changes as a run sends them (the worker's RunEvent); never kept in a round. */
  | { type: 'turtle'; block: number; changes: string }
  /**
   * Where a turtle screen is being drawn, while the run goes on: the picture (a display event)
   * takes its place when it comes. `picture` goes to listeners only, never into storage.
   */
  | { type: 'turtle_live'; block: number; screen: string; picture?: TurtlePicture }
  /** The value of the block's last expression. */
  | { type: 'result'; block: number; bundle: MimeBundle }
  | { type: 'exec_error'; block: number; error: RunError }
  /** The block's recorded steps, when it was sent with Step through: kept with the round, so a reload shows them again. */
  | { type: 'trace'; block: number; trace: Trace }
  | { type: 'files_written'; block: number; changed: string[]; deleted: string[] }
  | {
      type: 'code_end';
      block: number;
      durationMs: number;
      notPersisted: { name: string; reason: string }[];
      /** Said; English words in rounds kept before PyTabs said its texts. */
      commitError?: Text;
    }
  /**
   * Output beyond the per-round cap was not shown; one per kind, updated as more comes.
   * For stream output, `total` counts all of its characters and `tail` keeps its end
   * (rounds stored before these fields existed lack them).
   */
  | { type: 'truncated'; block: number; what: 'output' | 'rich'; limit: number; total?: number; tail?: string }
  /** The message could not run at all, or the run broke outside Python (e.g. a bad attachment). */
  | { type: 'round_error'; message: Text }
  | { type: 'round_end'; durationMs: number; state: RoundState }
  /** An Ask round's model text, code cards, tool results, usage and notes (assistant/events.ts). */
  | AssistantEvent;

export type RoundState = 'running' | 'finished' | 'failed' | 'stopped';

/** One message and its reply. A type alias, not an interface, so it fits the `rounds` store's record type. */
export type Round = {
  id: string;
  sessionId: string;
  /** Position in the session's history, from 1. */
  seq: number;
  createdAt: number;
  /** 'ask': a question to the assistant (assistant/ask.ts); absent in Code rounds. */
  kind?: 'code' | 'ask';
  message: string;
  /** Names of the files attached to the message, as written to the workspace. */
  files: string[];
  state: RoundState;
  durationMs?: number;
  events: RoundEvent[];
  /** Characters of stdout/stderr and of rich output kept so far; the caps apply to these. */
  outputChars: number;
  richChars: number;
  /** All of the round's stdout and stderr, kept when the shown output was cut. */
  fullOutput?: Blob;
  /** The notebook this round was imported from: it shows that notebook's outputs and never ran here. */
  importedFrom?: string;
};

/** A file attached to a message. */
export interface Attachment {
  name: string;
  data: Uint8Array;
}
