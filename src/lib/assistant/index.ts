export { ask, prepareAsk, testConnection } from './lazy';
export type { AskOptions, AssistantEngine, Approval } from './ask';
export type { ConnectionReport, ConnectionStatus } from './connection';
export { AssistantEndpoint, assistantEndpoint, type EndpointConnection } from './endpoint';
export { PRESETS, presetFor, type EndpointPreset, type PresetId } from './presets';
export { AssistantError, type AssistantErrorKind } from './assistant-error';
export { OriginRefusedError } from './guarded-fetch';
export { roundUsage } from './usage';
export type { AssistantEvent, CodeCard, CodeCardStatus, AssistantNoteKind, SentMessage } from './events';
export {
  DEFAULT_ASSISTANT_SETTINGS,
  readSessionPrefs,
  writeSessionPrefs,
  type AssistantSettings,
  type AssistantSessionPrefs,
} from '../storage/assistant-settings';
