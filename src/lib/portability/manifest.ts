import { version as appVersion } from '../../../package.json';
import { version as pyodideVersion } from 'pyodide/package.json';
import { ImportError } from './errors';
import { finite, flag, integer, record, text } from './checks';
import { MAX_ENTRIES } from './limits';
import { said } from '../i18n/said';
import { quoteName } from '../quote-name';

export const MANIFEST = 'manifest.json';
/** An HMAC of manifest.json's bytes under this device's key (signature.ts): says which device made the file. */
export const SIGNATURE = 'manifest.sig';
export const FORMAT = 'pytabs-session';
export const FORMAT_VERSION = 1;
export const APP_VERSION: string = appVersion;
export const PYODIDE_VERSION: string = pyodideVersion;

export interface EntryInfo {
  sha256: string;
  size: number;
  /** Files only: when the workspace file was last changed. */
  modifiedAt?: number;
}

/** manifest.json of a `.pytabs.zip`. */
export interface Manifest {
  format: typeof FORMAT;
  formatVersion: number;
  app: { name: 'PyTabs'; version: string };
  pyodide: string;
  exportedAt: number;
  session: { name: string; createdAt: number; vars: Record<string, string> };
  /**
   * The saved variables in state/ were still held back for confirmation on the device that
   * exported them, so they stay held wherever the file is imported, that device included.
   */
  stateHeld: boolean;
  /** Every other entry but the signature, with its sha256. */
  entries: Record<string, EntryInfo>;
}

export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

const MAX_SESSION_NAME = 100;
const MAX_VARS = 1000;
const MAX_VAR_NAME = 100;
const MAX_VAR_VALUE = 64 * 1024;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A session name as the manager accepts it (sessions/manager.ts), or why not. */
export function checkSessionName(value: unknown, what: string): string {
  const name = text(value, what, 10_000).trim();
  if (!name) throw new ImportError(said('lib_manifest_empty', { what }));
  if (name.length > MAX_SESSION_NAME) throw new ImportError(said('asg_json_too_long', { what, max: MAX_SESSION_NAME }));
  if (CONTROL.test(name)) throw new ImportError(said('lib_manifest_control', { what }));
  return name;
}

/** Session variables as the manager accepts them, or why not. */
export function checkSessionVars(value: unknown, what: string): Record<string, string> {
  const vars = record(value, what);
  const keys = Object.keys(vars);
  if (keys.length > MAX_VARS) throw new ImportError(said('lib_manifest_too_many_vars', { what, count: keys.length, max: MAX_VARS }));
  const out: Record<string, string> = {};
  for (const key of keys) {
    const name = key.trim();
    if (!name || name.length > MAX_VAR_NAME) throw new ImportError(said('lib_manifest_var_name', { what, max: MAX_VAR_NAME }));
    out[name] = text(vars[key], `${what} ${quoteName(name)}`, MAX_VAR_VALUE);
  }
  return out;
}

/** Checks a manifest read from a file made anywhere: every field's type and bound. */
export function checkManifest(value: unknown): Manifest {
  const m = record(value, 'manifest.json');
  if (m.format !== FORMAT) throw new ImportError(said('lib_manifest_not_session', { format: FORMAT }));
  const formatVersion = integer(m.formatVersion, 'manifest.json "formatVersion"', 1);
  if (formatVersion > FORMAT_VERSION) {
    throw new ImportError(said('lib_manifest_newer', { format: formatVersion, reads: FORMAT_VERSION }));
  }
  const app = record(m.app, 'manifest.json "app"');
  const session = record(m.session, 'manifest.json "session"');
  const entries = record(m.entries, 'manifest.json "entries"');
  const names = Object.keys(entries);
  if (names.length > MAX_ENTRIES) throw new ImportError(said('lib_manifest_too_many_entries', { count: names.length, max: MAX_ENTRIES }));
  const checked: Record<string, EntryInfo> = {};
  for (const name of names) {
    const what = `manifest.json entry "${name.slice(0, 200)}"`;
    const entry = record(entries[name], what);
    const sha256 = text(entry.sha256, `${what} "sha256"`, 64);
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new ImportError(said('lib_manifest_bad_sha', { what }));
    checked[name] = { sha256, size: integer(entry.size, `${what} "size"`) };
    if (entry.modifiedAt !== undefined) checked[name].modifiedAt = finite(entry.modifiedAt, `${what} "modifiedAt"`);
  }
  return {
    format: FORMAT,
    formatVersion,
    app: { name: 'PyTabs', version: text(app.version, 'manifest.json "app.version"', 100) },
    pyodide: text(m.pyodide, 'manifest.json "pyodide"', 100),
    exportedAt: finite(m.exportedAt, 'manifest.json "exportedAt"'),
    session: {
      name: checkSessionName(session.name, 'manifest.json session "name"'),
      createdAt: finite(session.createdAt, 'manifest.json session "createdAt"'),
      vars: checkSessionVars(session.vars ?? {}, 'manifest.json session "vars"'),
    },
    stateHeld: m.stateHeld === undefined ? false : flag(m.stateHeld, 'manifest.json "stateHeld"'),
    entries: checked,
  };
}

/**
 * Checks the archive's entries against the manifest: the same names, and each one's size
 * and sha256 as listed. Anything missing, extra or changed refuses the whole file.
 */
export async function verifyEntries(manifest: Manifest, entries: Map<string, Uint8Array>): Promise<void> {
  for (const name of entries.keys()) {
    if (name !== MANIFEST && name !== SIGNATURE && !(name in manifest.entries)) {
      throw new ImportError(said('lib_manifest_not_listed', { name: quoteName(name) }));
    }
  }
  for (const [name, info] of Object.entries(manifest.entries)) {
    const data = entries.get(name);
    if (!data) throw new ImportError(said('lib_manifest_missing', { name: quoteName(name) }));
    if (data.byteLength !== info.size || (await sha256Hex(data)) !== info.sha256) {
      throw new ImportError(said('lib_manifest_changed', { name: quoteName(name) }));
    }
  }
}
