#!/usr/bin/env node
// Downloads the Pyodide package distribution for the version the app ships, so the app
// and its packages can be served from one place with no request to a CDN (a school's
// own server, an offline classroom). Run on a machine with internet:
//
//   npm run vendor:packages                          every package (several hundred MB)
//   npm run vendor:packages -- --packages pandas,matplotlib   these and their dependencies
//   npm run vendor:packages -- --out some/dir         another target than public/pyodide-packages
//   npm run vendor:packages -- --from https://mirror/  another source than the official CDN
//
// Files already present with the right SHA-256 are kept, so a second run only fetches
// what is missing. Every file is checked against the hash in Pyodide's lock file.

import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const pyodideDir = path.join(root, 'node_modules', 'pyodide');
const { version } = JSON.parse(readFileSync(path.join(pyodideDir, 'package.json'), 'utf8'));

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: `https://cdn.jsdelivr.net/pyodide/v${version}/full/` },
    out: { type: 'string', default: path.join(root, 'public', 'pyodide-packages') },
    packages: { type: 'string' },
  },
});
const source = values.from.endsWith('/') ? values.from : `${values.from}/`;

// The lock file of the npm package is the one of the CDN's distribution for this version.
const lockPath = path.join(pyodideDir, 'pyodide-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));

function selected() {
  if (!values.packages) return Object.keys(lock.packages);
  const normalize = (name) => name.toLowerCase().replace(/[-_.]+/g, '-');
  const chosen = new Set();
  const visit = (key) => {
    if (chosen.has(key)) return;
    if (!lock.packages[key]) throw new Error(`Pyodide ${version} has no package named "${key}".`);
    chosen.add(key);
    lock.packages[key].depends.forEach(visit);
  };
  values.packages.split(',').map((n) => normalize(n.trim())).filter(Boolean).forEach(visit);
  return [...chosen];
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

async function fetchOne(entry) {
  const target = path.join(values.out, entry.file_name);
  if (existsSync(target) && sha256(readFileSync(target)) === entry.sha256) return 'kept';
  const response = await fetch(source + entry.file_name);
  if (!response.ok) throw new Error(`${source}${entry.file_name}: ${response.status} ${response.statusText}`);
  const data = new Uint8Array(await response.arrayBuffer());
  if (sha256(data) !== entry.sha256) throw new Error(`${entry.file_name}: SHA-256 does not match the lock file`);
  writeFileSync(target, data);
  return 'downloaded';
}

async function main() {
  const keys = selected();
  mkdirSync(values.out, { recursive: true });
  console.log(`Pyodide ${version}: ${keys.length} packages from ${source} into ${values.out}`);
  const queue = [...keys];
  const counts = { kept: 0, downloaded: 0 };
  const failures = [];
  // A few downloads at a time: fast enough, and gentle with the server.
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let key = queue.shift(); key; key = queue.shift()) {
        try {
          counts[await fetchOne(lock.packages[key])]++;
          process.stdout.write(`\r${counts.kept + counts.downloaded}/${keys.length}`);
        } catch (e) {
          failures.push(e.message);
        }
      }
    }),
  );
  // The full lock file even for a subset: unlisted packages then fail with a clear
  // "could not load" naming the index, rather than as an unknown module.
  copyFileSync(lockPath, path.join(values.out, 'pyodide-lock.json'));
  console.log(`\n${counts.downloaded} downloaded, ${counts.kept} already there.`);
  if (failures.length) {
    console.error(`${failures.length} failed:\n  ${failures.join('\n  ')}`);
    process.exit(1);
  }
  console.log("Serve the app, then set PyTabs' package index setting to <app URL>/pyodide-packages/ (or the URL of this directory).");
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
