export { EMBED_ROUTE, EMBED_PARAMS, EMBED_ID, embedFragment, type EmbedSettings, type EmbedRun, type EmbedTheme } from './fragment';
export { isEmbedLink, readEmbed, embedLocale, type EmbedOptions, type OpenedEmbed } from './options';
export { loadAllowedOrigins, parseOrigins, ORIGINS_FILE, type AllowedOrigins } from './origins';
export { embedPage, openEmbedSession, resetEmbed, isEmbedSession, authorCode, openInPyTabsUrl, embedSession, type EmbedPage, type EmbedSession, type EmbedOffer, type FrameFacts } from './embed-session';
export { EmbedBridge, parentHelloOrigin, type EmbedHandlers } from './bridge';
export * from './protocol';
