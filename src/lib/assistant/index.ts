export { ask, type AskOptions, type AssistantEngine, type Approval } from './ask';
export { AssistantEndpoint, assistantEndpoint, type EndpointConnection } from './endpoint';
export { testConnection, type ConnectionReport, type ConnectionStatus } from './connection';
export { PRESETS, presetFor, type EndpointPreset, type PresetId } from './presets';
export { AssistantError, type AssistantErrorKind } from './errors';
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
