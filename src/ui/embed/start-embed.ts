import { mount } from 'svelte';
import { SessionManager } from '../../lib';
import { EMBED_PARAMS, EMBED_ROUTE, embedLocale, embedPage, loadAllowedOrigins, openEmbedSession, parentHelloOrigin, readEmbed, type OpenedEmbed } from '../../lib/embed';
import { errorText, messages, setLocale, startLocale } from '../../lib/i18n';
import { SHARE_ROUTE } from '../../lib/portability/share-link';
import { endWithPage } from '../../lib/sessions/page-life';
import { NewerSchemaError } from '../../lib/storage/db';
import Embed from './Embed.svelte';
import { EmbedView } from './embed-view.svelte';

/** How long a frame the browser does not tell its page's origin waits for the page's hello (the client says it on each load). */
const HELLO_WAIT_MS = 3000;

function showAlert(target: HTMLElement, text: string): void {
  const p = document.createElement('p');
  p.setAttribute('role', 'alert');
  p.style.padding = '1rem';
  p.textContent = text;
  target.replaceChildren(p);
}

/**
 * A browser that blocks storage for other sites' frames (third-party storage: Chromium with
 * third-party cookies blocked, incognito windows) gives an embed no IndexedDB, so no session:
 * said in the app's words with what the reader can do (the browser's own text, such as "The
 * user denied permission to access the database.", goes to the console), with the author's
 * version to open in a PyTabs tab of its own (the fragment's `v` and `z` are a shared link's,
 * so no storage is needed to make that link).
 */
function showStorageBlocked(target: HTMLElement, appUrl: string): void {
  const box = document.createElement('div');
  box.setAttribute('role', 'alert');
  box.style.padding = '1rem';
  const p = document.createElement('p');
  p.textContent = messages().rt_embed_storage_blocked_framed({ host: location.hostname });
  const params = new URLSearchParams(location.hash.slice(EMBED_ROUTE.length + 1));
  const link = document.createElement('a');
  link.textContent = messages().rt_embed_open();
  link.target = '_blank';
  link.rel = 'noopener';
  link.href = params.has(EMBED_PARAMS.data)
    ? `${appUrl}${SHARE_ROUTE}?${new URLSearchParams({ v: params.get(EMBED_PARAMS.version) ?? '', z: params.get(EMBED_PARAMS.data)! }).toString()}`
    : appUrl;
  box.append(p, link);
  target.replaceChildren(box);
}

/**
 * The embed's language: its address's `lang` (the author's, or the course page's `<html lang>`
 * the client passes), else as the app chooses (the person's choice in this browser, the site's,
 * the browser's). `<html lang dir>` follow. A catalog that cannot load leaves English.
 */
async function showLanguage(hash: string): Promise<void> {
  const asked = embedLocale(hash);
  try {
    if (asked) await setLocale(asked);
    else await startLocale();
  } catch (error) {
    // internal: the console's, for the course page's developer.
    console.warn('PyTabs embed: its language could not load; showing English.', error);
    await setLocale('en');
  }
}

/**
 * `#/embed`: one session for an iframe, instead of the app. The fragment is read and checked
 * before storage is touched (a refused one writes nothing); then the embed's session is found
 * or made for this page and id, and the page's API opens when the page's origin is allowed.
 * `onManager` hears the manager once storage is open (the service worker's side attaches to it).
 */
export async function startEmbed(target: HTMLElement, onManager: (manager: SessionManager) => void): Promise<void> {
  const framed = window.parent !== window;
  // Heard from the start: the page's hello may come while the fragment is read.
  const hello = framed ? parentHelloOrigin(window, window.parent, HELLO_WAIT_MS) : Promise.resolve(null);
  await showLanguage(location.hash);
  let opened: OpenedEmbed;
  try {
    opened = await readEmbed(location.hash);
  } catch (error) {
    showAlert(target, errorText(error));
    return;
  }
  if (opened.options.theme !== 'auto') document.documentElement.dataset.theme = opened.options.theme;
  const appUrl = location.href.replace(/#.*$/, '');
  const facts = { top: !framed, selfOrigin: location.origin, ancestorOrigins: location.ancestorOrigins, referrer: document.referrer };
  let page = embedPage(facts, opened.options.page);
  if (page.origin === null && framed) page = embedPage({ ...facts, helloOrigin: await hello }, opened.options.page);
  let manager: SessionManager;
  try {
    manager = await SessionManager.open();
  } catch (error) {
    // A database of a newer PyTabs is said in the app's words already; anything else is the browser refusing storage.
    if (error instanceof NewerSchemaError) showAlert(target, errorText(error));
    else {
      // internal: the console's, for the course page's developer; the reader sees rt_embed_storage_blocked.
      console.warn(`PyTabs embed: storage (IndexedDB) could not be opened: ${String(error)}`);
      if (framed) showStorageBlocked(target, appUrl);
      else
        showAlert(target, messages().rt_embed_storage_blocked({ host: location.hostname }));
    }
    return;
  }
  onManager(manager);
  endWithPage(manager);
  try {
    const [embed, allowed] = await Promise.all([openEmbedSession(manager, page, opened.options, opened.author), loadAllowedOrigins(appUrl)]);
    // internal: the deployer's file's problems go to the console (origins.ts).
    for (const problem of allowed.problems) console.warn(`PyTabs embed: ${problem}`);
    const info = await manager.getSession(embed.sessionId);
    const view = new EmbedView(manager, opened, page, embed, info, appUrl, { self: window, parent: window.parent, allowed: allowed.origins });
    document.title = `${info.name} · PyTabs`;
    target.replaceChildren();
    mount(Embed, { target, props: { embed: view } });
    const { session } = view;
    manager.subscribe((change) => {
      if (change.sessionId !== null && change.sessionId !== session.id) return;
      void session.refresh(change.parts);
      if (change.parts.includes('record') || change.parts.includes('state')) manager.getSession(session.id).then((i) => session.updateInfo(i), () => undefined);
    });
    manager.subscribeProgress((id, step) => id === session.id && session.setProgress(step));
    manager.subscribeInput((id, request) => id === session.id && session.setInput(request));
    await view.load();
    view.bridge.start();
    // The author asked for the code to run at once: on a first visit only, a returning reader finds their own state.
    if (opened.options.run === 'load' && embed.made) await view.run();
  } catch (error) {
    showAlert(target, messages().rt_embed_could_not_open({ error: errorText(error) }));
  }
}
