import { version as pyodideVersion, type Lockfile, type PyodideInterface } from 'pyodide';
import type { RunError, RunEvent } from '../../src/lib/worker-api';
import { said, tellInEnglish, type Said } from '../../src/lib/i18n/said';

/** The official package CDN for the Pyodide version the app ships (the core itself stays local). */
export function officialPackageIndex(version: string = pyodideVersion): string {
  return `https://cdn.jsdelivr.net/pyodide/v${version}/full/`;
}

/** How long a custom index may take to serve its lock file before the session starts without it. */
const LOCK_FILE_TIMEOUT_MS = 15_000;

/** Where a session's packages come from, and why that index is unusable if it is. */
export interface PackageIndex {
  /** Directory of the wheels (ends with '/'). */
  url: string;
  /** Options for loadPyodide: the lock file naming the packages and where their files are. */
  config: { lockFileContents: Promise<Lockfile>; packageBaseUrl: string };
  /** Set once the lock file promise settled, when the index's lock file could not be used. */
  problem: Said | null;
}

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

async function fetchLockFile(url: string): Promise<Lockfile> {
  const response = await fetch(url, { signal: AbortSignal.timeout(LOCK_FILE_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`.trim());
  return (await response.json()) as Lockfile;
}

/** Whether two lock files name the same files with the same digests (an index may republish under the same names). */
export function sameLockfile(a: Lockfile, b: Lockfile): boolean {
  const files = (lock: Lockfile) => JSON.stringify([lock.info?.abi_version, Object.entries(lock.packages ?? {}).map(([key, p]) => [key, p.file_name, p.sha256]).sort()]);
  return files(a) === files(b);
}

/**
 * The package index for a session. Without `packageIndexURL` the core's own lock file is
 * used (no request at start) with the package files from the official CDN. With one, its
 * lock file is fetched while Pyodide starts; if that fails, or it was made for another
 * Pyodide, the session still starts on the core's lock file and only a run that needs a
 * package reports the problem: a school's index being down must not take Python away.
 * `coreLock` is the core's lock file as the page holds it (CoreFiles), read instead of fetched.
 */
export function packageIndex(coreIndexURL: string, packageIndexURL?: string, coreLock?: string): PackageIndex {
  const coreLockFile = async () => (coreLock === undefined ? fetchLockFile(`${withSlash(coreIndexURL)}pyodide-lock.json`) : (JSON.parse(coreLock) as Lockfile));
  if (!packageIndexURL) {
    const url = officialPackageIndex();
    return { url, config: { lockFileContents: coreLockFile(), packageBaseUrl: url }, problem: null };
  }
  const url = withSlash(packageIndexURL);
  const index = { url, problem: null as Said | null };
  const lockFileContents = Promise.all([fetchLockFile(`${url}pyodide-lock.json`), coreLockFile()]).then(
    ([custom, core]) => {
      if (custom?.info?.abi_version === core.info.abi_version && custom.packages) return custom;
      index.problem = said('rt_index_other_abi', { abi: custom?.info?.abi_version ?? '?', ours: core.info.abi_version });
      return core;
    },
    async (e: unknown) => {
      index.problem = said('rt_index_unreadable', { error: e instanceof Error ? e.message : String(e) });
      return coreLockFile();
    },
  );
  return Object.assign(index, { config: { lockFileContents, packageBaseUrl: url } });
}

/**
 * Loads the packages a run's imports need, before the run. One per session worker:
 * it holds only what that worker's Pyodide has loaded.
 */
export class PackageLoader {
  private importToPackage: Map<string, string> | null = null;

  constructor(
    private readonly pyodide: PyodideInterface,
    private readonly index: PackageIndex,
  ) {}

  /** Import name → lock file package name, from the lock file Pyodide started with. */
  private get imports(): Map<string, string> {
    if (!this.importToPackage) {
      this.importToPackage = new Map();
      for (const [key, entry] of Object.entries(this.pyodide.lockfile.packages)) {
        for (const name of entry.imports) this.importToPackage.set(name, key);
      }
    }
    return this.importToPackage;
  }

  /** The packages (lock file keys) `code` imports that are not loaded yet, with their dependencies. */
  private missing(code: string): string[] {
    // find_imports parses the code; code without the word cannot have an import statement.
    if (!/\bimport\b/.test(code)) return [];
    const findImports = this.pyodide.pyimport('pyodide.code').find_imports;
    let names: string[];
    try {
      const found = findImports(code);
      names = found.toJs();
      found.destroy();
    } finally {
      findImports.destroy();
    }
    const packages = this.pyodide.lockfile.packages;
    const needed = new Set<string>();
    const visit = (key: string) => {
      const entry = packages[key];
      if (!entry || needed.has(key) || this.pyodide.loadedPackages[entry.name]) return;
      needed.add(key);
      entry.depends.forEach(visit);
    };
    for (const name of names) {
      const key = this.imports.get(name);
      if (key) visit(key);
    }
    return [...needed];
  }

  /**
   * Loads what `code` imports from the index, reporting progress as status events.
   * Returns null when everything is there (at once, with no request, when the code
   * needs nothing new) or an error naming the packages and the index.
   */
  async loadFor(code: string, emit: (event: RunEvent) => void): Promise<RunError | null> {
    const needed = this.missing(code);
    if (needed.length === 0) return null;
    const names = needed.map((key) => this.pyodide.lockfile.packages[key].name);
    if (this.index.problem) return this.failure(names, this.index.problem);
    const errors: string[] = [];
    try {
      await this.pyodide.loadPackage(names, {
        messageCallback: (message) => {
          const step = /^(Loading|Loaded) (.*)$/s.exec(message);
          if (step) {
            const text = step[1] === 'Loading' ? `${message}…` : message;
            emit({ type: 'status', text, said: said(step[1] === 'Loading' ? 'rt_loading_packages' : 'rt_loaded_packages', { names: step[2] }) });
          }
        },
        // Pyodide reports each failure as a heading line followed by the cause.
        errorCallback: (message) => {
          // internal: Pyodide's own heading, matched here, never shown.
          if (!message.startsWith('The following error occurred')) errors.push(message);
        },
      });
    } catch (e) {
      errors.push(e instanceof Error ? e.message : String(e));
    }
    const failed = needed.filter((key) => !this.pyodide.loadedPackages[this.pyodide.lockfile.packages[key].name]);
    if (failed.length === 0) return null;
    const files = failed.map((key) => new URL(this.pyodide.lockfile.packages[key].file_name, this.index.url).href);
    let cause: Said = errors.length ? said('rt_py_text', { text: errors.join(' ') }) : said('rt_package_not_installed');
    // A browser says only this for a 404 (the integrity check fails), a refused connection or missing CORS headers.
    if (/Failed to fetch|NetworkError|Load failed/.test(errors.join(' '))) {
      cause = said(globalThis.navigator?.onLine === false ? 'rt_package_offline' : 'rt_package_unreachable', { error: errors.join(' ') });
    }
    return this.failure(
      failed.map((key) => this.pyodide.lockfile.packages[key].name),
      said('rt_package_download_failed', { files: files.join(', '), cause }),
    );
  }

  private failure(names: string[], cause: Said): RunError {
    const text = said('rt_package_failed', { count: names.length, names: names.map((n) => `"${n}"`).join(', '), index: this.index.url, cause });
    const message = tellInEnglish(text);
    return { ename: 'PackageLoadError', evalue: message, traceback: `PackageLoadError: ${message}`, said: text };
  }
}
