// `npm start`: installs dependencies when missing, builds the app and serves it on localhost.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const run = (cmd) => execSync(cmd, { stdio: 'inherit' });
if (!existsSync('node_modules/.package-lock.json')) {
  // npm ci refuses a lock whose optional per-platform builds of rollup were never served here (see .ci/run).
  try {
    run('npm ci --no-audit --no-fund');
  } catch {
    run('npm install --no-audit --no-fund');
  }
}
run('npx vite build');
const port = process.env.PORT ?? '4173';
console.log(`\nPyTabs is served at http://localhost:${port}/\n`);
run(`npx vite preview --port ${port} --strictPort`);
