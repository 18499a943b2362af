export { sendMessage, type ChatEngine, type SendOptions } from './send';
export { splitMessage, type CodeBlock } from './blocks';
export { appendEvent, newRound, OUTPUT_CAP, RICH_CAP } from './round';
export type { Attachment, Round, RoundEvent, RoundState } from './types';
export { listRounds, type HistorySource } from './history';
export { cardErrorLines, errorLines } from './error-lines';
