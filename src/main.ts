import { mount, unmount } from 'svelte';
import App from './ui/App.svelte';
import './ui/app.css';
import * as lib from './lib';
import { SessionManager, onDataErased, type DataGoneReason } from './lib';
import { startAppServiceWorker, type AppServiceWorker } from './lib/offline/service-worker';
import UpdateBanner from './ui/UpdateBanner.svelte';
import { createApi, type PyTabsApi } from './lib/api';
import { endWithPage } from './lib/sessions/page-life';
import { isEmbedLink } from './lib/embed/options';
import { askPersisted, storageRiskOnOpen } from './lib/storage-risk';
import { errorText, messages, startLocale } from './lib/i18n';

declare global {
  interface Window {
    /** The app's TypeScript API, for the console and end-to-end tests. */
    pytabs?: PyTabsApi;
    /** The rest of `src/lib` (chat, sessions as files, erase), to call with `pytabs`: for the console and end-to-end tests. */
    pytabsLib?: typeof lib;
    /** The page's service worker handling (offline use, updates): for the console and end-to-end tests. */
    pytabsOffline?: AppServiceWorker;
  }
}

/**
 * The page's last word, when it can do nothing more: a page of its own (a main landmark headed
 * by the text, as screen readers expect of any page), and, where reloading helps, the way on.
 */
function showEnd(target: HTMLElement, text: string, reload: boolean): void {
  const main = document.createElement('main');
  main.style.padding = '2rem';
  const box = document.createElement('div');
  box.setAttribute('role', 'alert');
  const heading = document.createElement('h1');
  heading.style.fontSize = '1.1rem';
  heading.textContent = text;
  box.append(heading);
  if (reload) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = messages().update_reload();
    button.addEventListener('click', () => location.reload());
    box.append(button);
  }
  main.append(box);
  target.replaceChildren(main);
}

/** This device's data was erased (here or in another tab), or a newer PyTabs took the database over. */
function showDataGone(target: HTMLElement, reason: DataGoneReason): void {
  showEnd(target, reason === 'erased' ? messages().page_erased() : messages().page_taken_over(), true);
}

/**
 * An older PyTabs in another tab holds the database and cannot be told to let go (it predates
 * the code that would): named with what to do, instead of a page that silently never opens.
 */
function showBlocked(target: HTMLElement): void {
  showEnd(target, messages().page_blocked(), false);
}

const target = document.getElementById('app')!;
// First, before any session worker: a first visit's workers wait until it controls the page.
const serviceWorker = startAppServiceWorker();
window.pytabsOffline = serviceWorker;

/** The app: the session list, one session's chat and panels, settings. */
async function startApp(): Promise<void> {
  // Asked beside the database's opening, not after it: the first paint waits for both.
  const persisted = askPersisted();
  // The language is read and its messages loaded while the database opens: the first paint shows it.
  const language = startLocale();
  try {
    // Told once the language is there (before it, a message reads as its key), unless the
    // database opened meanwhile.
    let opened = false;
    const blocked = () => void language.catch(() => undefined).then(() => opened || showBlocked(target));
    const manager = await SessionManager.open({ onBlocked: blocked });
    opened = true;
    performance.mark('pytabs:storage-open');
    serviceWorker.attach(manager);
    endWithPage(manager);
    // Decided before the first paint: a notice arriving later moved the page under a click.
    const storageRisk = await storageRiskOnOpen(manager.settingsStore, persisted).catch(() => null);
    await language;
    // The page's API once its language is loaded: an error made before it read as its key.
    window.pytabs = createApi(manager);
    window.pytabsLib = lib;
    target.replaceChildren();
    const app = mount(App, { target, props: { manager, storageRisk } });
    void onDataErased(manager, (reason) => {
      void unmount(app);
      showDataGone(target, reason);
    });
    // Offline use and updates (src/sw.ts); the banner sits above the app, outside its layout.
    const banner = document.createElement('div');
    target.before(banner);
    mount(UpdateBanner, { target: banner, props: { worker: serviceWorker } });
  } catch (error) {
    // Without storage there is no app; say why instead of leaving a blank page.
    const p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.style.padding = '2rem';
    await language;
    // In words now that the language is loaded: a said error's message was worded when it was made.
    p.textContent = messages().page_no_storage({ error: errorText(error) });
    target.replaceChildren(p);
  }
}

if (isEmbedLink(location.hash)) {
  // An embed (src/ui/embed) is one session for an iframe: no session list, no settings, no update
  // banner. A chunk of its own, so the app's first load carries none of it.
  const { startEmbed } = await import('./ui/embed/start-embed');
  await startEmbed(target, (manager) => serviceWorker.attach(manager));
} else {
  await startApp();
}
