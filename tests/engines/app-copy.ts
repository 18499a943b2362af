import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';

/**
 * The built app this suite serves: a copy of dist/, made before its first test. Its embed test
 * writes the copy's embed-origins.json, as tests/e2e's write dist's, so the two suites can run
 * side by side (`npm run test:browsers`) without one's deployment file changing under the other.
 */
export const DIST = path.resolve('dist-engines');

export default function copyApp(): void {
  rmSync(DIST, { recursive: true, force: true });
  cpSync(path.resolve('dist'), DIST, { recursive: true });
}
