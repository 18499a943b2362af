import { test as base } from '@playwright/test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchEngine, type Engine, type EngineName, type EngineProfile, type ProfileOptions } from '../../scripts/engines.mjs';
import { StaticHost } from '../e2e/static-host';
import { Person } from './person';

/** Where the suite runs: an engine, and a host that sends no headers or the project's `_headers`. */
export interface Where {
  engineName: EngineName;
  hostHeaders: 'plain' | 'project';
}

interface Fixtures {
  /** The built app on a static host under /sub/app/, with this project's headers. */
  host: StaticHost;
  /** Opens a browser with a fresh profile (a new person's browser); all are closed after the test. */
  newProfile: (options?: ProfileOptions) => Promise<EngineProfile>;
  /** A person in a fresh profile, on one page. */
  person: Person;
  /** Lets a test's second try run only when its first ended in the engine's own crash (see below). */
  onlyAfterCrash: void;
}

/**
 * The engine's own process dying (WebKitGTK's web process once, in a CI run: "session deleted
 * because of page crash or hang") is not the app's failure to show: such a try is tried again,
 * once (the config's `retries: 1`). Any other failure fails the second try at once, so a flaky
 * check stays red.
 */
const ENGINE_CRASH = /page crash|Target crashed|Browser has disconnected|browser has been closed|session deleted|did not open a profile/i;

/** How long an engine may take to open a fresh profile: WebKitWebDriver once never answered (a CI-like full run). */
const PROFILE_START_MS = 90_000;

/** `promise`, or a failure once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const DIST = path.resolve('dist');

export const test = base.extend<Fixtures, Where & { engine: Engine }>({
  onlyAfterCrash: [
    async ({}, use, testInfo) => {
      const marker = path.join(testInfo.project.outputDir, '.engine-crashes', testInfo.testId);
      if (testInfo.retry > 0 && !existsSync(marker)) throw new Error('Not tried again: its first try failed, and not by a crash of the engine.');
      await use();
      const message = testInfo.errors.map((e) => e.message ?? '').join('\n');
      if (testInfo.status === 'failed' && ENGINE_CRASH.test(message)) {
        mkdirSync(path.dirname(marker), { recursive: true });
        writeFileSync(marker, message);
        console.log(`The engine crashed in "${testInfo.title}" (${testInfo.project.name}); it is tried once more.`);
      }
    },
    { auto: true },
  ],
  engineName: ['firefox', { option: true, scope: 'worker' }],
  hostHeaders: ['plain', { option: true, scope: 'worker' }],
  engine: [
    async ({ engineName }, use) => {
      const engine = await launchEngine(engineName);
      await use(engine);
      await engine.close();
    },
    { scope: 'worker' },
  ],
  host: async ({ hostHeaders }, use) => {
    const host = await new StaticHost(DIST, '/sub/app/', hostHeaders).start();
    await use(host);
    await host.close();
  },
  newProfile: async ({ engine }, use) => {
    const open: EngineProfile[] = [];
    await use(async (options?: ProfileOptions) => {
      const starting = engine.newProfile(options);
      const profile = await within(starting, PROFILE_START_MS, `The engine did not open a profile in ${PROFILE_START_MS / 1000} s.`).catch((error: unknown) => {
        // One that opens after all is closed, not left running.
        void starting.then((late) => late.close()).catch(() => undefined);
        throw error;
      });
      open.push(profile);
      return profile;
    });
    for (const profile of open) await profile.close();
  },
  person: async ({ newProfile }, use, testInfo) => {
    const person = new Person(await (await newProfile()).newPage());
    await use(person);
    // These engines give no trace: what the page said is the record of a failure.
    if (testInfo.status !== testInfo.expectedStatus) {
      const text = await person.page
        .evaluate(() => {
          // How each session worker let go of storage (src/lib/sessions/host.ts), for a delete that waits.
          const marks = (name: string) => performance.getEntriesByName(name).map((m) => `${Math.round(m.startTime)} ms ${JSON.stringify((m as PerformanceMark).detail)}`).join('\n') || '(none)';
          // And each stop: whether the run ended within the grace, and whether Python took the interrupt byte.
          return `${document.body.innerText}\n--- workers ended:\n${marks('pytabs:worker-ended')}\n--- stops:\n${marks('pytabs:stop')}`;
        })
        .catch((e: unknown) => `(the page could not be read: ${String(e)})`);
      await testInfo.attach('page text', { body: text, contentType: 'text/plain' });
      console.log(`--- page text at the failure of "${testInfo.title}" (${testInfo.project.name}):\n${text}\n---`);
    }
    await person.dispose();
  },
});

export { expect } from '@playwright/test';
