export { ImportError } from './errors';
export { exportSession, downloadAllWork, fileNameFor, type ExportedFile } from './export';
export {
  importSession,
  importKind,
  heldState,
  confirmImportedState,
  discardImportedState,
  type ImportFile,
  type ImportKind,
  type ImportResult,
  type HeldSummary,
} from './import';
export { OPEN_ROUTE, preparedLinkTarget, fetchPrepared, openPrepared, sessionOrigin, resetToOriginal, type PreparedFile } from './link';
export { SHARE_ROUTE, MAX_SHARE_CHARS, MAX_FRAGMENT_CHARS, MAX_SHARED_BYTES, isShareLink, decodeShare, encodeShare, type SharedSession, type OpenedShare } from './share-link';
export { shareSession, sessionFromShare, openShared, type ShareOffer } from './shared-session';
export { eraseAllData, onDataErased, PYTABS_PREFIX, type EraseReport, type EraseHolder, type DataGoneReason } from './erase';
export type { PortableManager } from './manager';
export { MAX_IMPORT_BYTES } from './limits';
