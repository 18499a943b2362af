import { countedResponse, type FetchProgress } from '../fetch-progress';
import { hexToBase64, isComplete, isKept, keepPackageFile, OFFICIAL_PACKAGE_INDEX, PACKAGE_CACHE, sha256Base64 } from './package-cache';
import { said, SaidError } from '../i18n/said';

/** The packages Settings offers to keep for offline use. */
export const OFFLINE_PACKAGES = ['numpy', 'pandas', 'matplotlib'];

/** How many size questions (HEAD requests) go out at once, and how long one may take before the size counts as unknown. */
const PARALLEL_HEADS = 6;
const HEAD_TIMEOUT_MS = 10_000;

/** Where packages come from: the lock file naming them and the directory of their files. */
export interface PackageSource {
  lockURL: string;
  baseURL: string;
}

/**
 * The index a session's imports use (workers/runtime/packages.ts): the configured one, or the
 * app's own lock file with the files from the official CDN.
 */
export function packageSource(coreIndexURL: string, packageIndexUrl?: string): PackageSource {
  if (!packageIndexUrl) return { lockURL: new URL('pyodide-lock.json', coreIndexURL).href, baseURL: OFFICIAL_PACKAGE_INDEX };
  const base = packageIndexUrl.endsWith('/') ? packageIndexUrl : `${packageIndexUrl}/`;
  return { lockURL: new URL('pyodide-lock.json', base).href, baseURL: base };
}

interface LockEntry {
  name: string;
  file_name: string;
  sha256: string;
  depends: string[];
}

export interface OfflinePackageFile {
  /** The package's name in the lock file. */
  name: string;
  /** The URL Pyodide loads it from, which is the key it is kept under. */
  url: string;
  /** SHA-256 (base64) from the lock file. */
  sha256: string;
  /** Bytes, when kept or when the index said; null when unknown (offline, or no Content-Length). */
  size: number | null;
  kept: boolean;
}

export interface OfflinePackagePlan {
  /** The packages asked for, with every package they depend on. */
  files: OfflinePackageFile[];
  /** Bytes of all files, or null when a size is unknown. */
  totalBytes: number | null;
  keptBytes: number;
}

export interface OfflinePackageProgress {
  /** The file being downloaded, or null when done. */
  file: string | null;
  filesDone: number;
  filesTotal: number;
  /** Bytes kept so far, of the plan's total (null when unknown). */
  loaded: number;
  total: number | null;
}

async function readLock(lockURL: string): Promise<Record<string, LockEntry>> {
  let response: Response;
  try {
    response = await fetch(lockURL);
  } catch (e) {
    throw new SaidError(said('libb_pkg_lock_unreachable', { url: lockURL, error: e instanceof Error ? e.message : String(e) }));
  }
  if (!response.ok) throw new SaidError(said('libb_pkg_lock_status', { url: lockURL, status: response.status }));
  const lock = (await response.json().catch(() => null)) as { packages?: Record<string, LockEntry> } | null;
  if (!lock?.packages) throw new SaidError(said('libb_pkg_lock_invalid', { url: lockURL }));
  return lock.packages;
}

/** The lock file keys of `names` and all they depend on; throws naming a package the lock file lacks. */
export function withDependencies(packages: Record<string, LockEntry>, names: string[]): string[] {
  const byName = new Map(Object.entries(packages).map(([key, entry]) => [entry.name.toLowerCase(), key]));
  const needed: string[] = [];
  const visit = (key: string) => {
    if (needed.includes(key)) return;
    needed.push(key);
    packages[key].depends.forEach((dep) => {
      const depKey = packages[dep] ? dep : byName.get(dep.toLowerCase());
      if (depKey) visit(depKey);
    });
  };
  for (const name of names) {
    const key = packages[name] ? name : byName.get(name.toLowerCase());
    if (!key) throw new SaidError(said('libb_pkg_unknown', { name }));
    visit(key);
  }
  return needed;
}

async function contentLength(url: string): Promise<number | null> {
  try {
    const response = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(HEAD_TIMEOUT_MS) });
    const length = Number(response.headers.get('Content-Length'));
    return response.ok && length > 0 ? length : null;
  } catch {
    return null;
  }
}

/**
 * What keeping `names` offline takes: their files and their dependencies', which of them are
 * kept already, and their sizes (asked of the index for the files not kept).
 */
export async function planOfflinePackages(source: PackageSource, names: string[] = OFFLINE_PACKAGES): Promise<OfflinePackagePlan> {
  const packages = await readLock(source.lockURL);
  const cache = await caches.open(PACKAGE_CACHE);
  const files = await Promise.all(
    withDependencies(packages, names).map(async (key): Promise<OfflinePackageFile> => {
      const entry = packages[key];
      const url = new URL(entry.file_name, source.baseURL).href;
      const sha256 = hexToBase64(entry.sha256);
      const { kept, size } = await isKept(cache, url, sha256);
      return { name: entry.name, url, sha256, kept, size: kept ? size : null };
    }),
  );
  const unknown = files.filter((f) => !f.kept);
  for (let i = 0; i < unknown.length; i += PARALLEL_HEADS) {
    await Promise.all(unknown.slice(i, i + PARALLEL_HEADS).map(async (f) => (f.size = await contentLength(f.url))));
  }
  const sizes = files.map((f) => f.size);
  const totalBytes = sizes.every((s) => s !== null) ? (sizes as number[]).reduce((a, b) => a + b, 0) : null;
  const keptBytes = files.filter((f) => f.kept).reduce((sum, f) => sum + (f.size ?? 0), 0);
  return { files, totalBytes, keptBytes };
}

/**
 * Downloads every file of the plan that is not kept yet, checks it against the lock file's
 * SHA-256 and keeps it in the package cache, where the service worker serves it to Pyodide
 * (src/sw.ts). The page asks without integrity metadata, so the service worker leaves these
 * requests alone and each file is written once. Throws naming the file that failed; the
 * files kept before it stay kept.
 */
export async function makePackagesOffline(plan: OfflinePackagePlan, onProgress: (progress: OfflinePackageProgress) => void): Promise<void> {
  const cache = await caches.open(PACKAGE_CACHE);
  const filesTotal = plan.files.length;
  let filesDone = plan.files.filter((f) => f.kept).length;
  let loaded = plan.keptBytes;
  const total = plan.totalBytes;
  for (const file of plan.files.filter((f) => !f.kept)) {
    const name = file.url.slice(file.url.lastIndexOf('/') + 1);
    onProgress({ file: name, filesDone, filesTotal, loaded, total });
    let response: Response;
    try {
      response = await fetch(file.url);
    } catch (e) {
      throw new SaidError(said('libb_pkg_unreachable', { file: name, name: file.name, url: file.url, error: e instanceof Error ? e.message : String(e) }));
    }
    if (!response.ok) throw new SaidError(said('libb_pkg_status', { file: name, name: file.name, url: file.url, status: response.status }));
    const before = loaded;
    const counted = countedResponse(response, name, (p: FetchProgress) => onProgress({ file: name, filesDone, filesTotal, loaded: before + p.loaded, total }));
    const bytes = await counted.arrayBuffer();
    if (!isComplete(response, bytes)) throw new SaidError(said('libb_pkg_cut_short', { file: name, url: file.url }));
    if ((await sha256Base64(bytes)) !== file.sha256) throw new SaidError(said('libb_pkg_sha_mismatch', { file: name, url: file.url }));
    await keepPackageFile(cache, file.url, response, bytes, file.sha256);
    file.kept = true;
    file.size = bytes.byteLength;
    filesDone += 1;
    loaded = before + bytes.byteLength;
  }
  onProgress({ file: null, filesDone, filesTotal, loaded, total });
}
