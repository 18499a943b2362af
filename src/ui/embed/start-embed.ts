import { mount } from 'svelte';
import { SessionManager } from '../../lib';
import { embedPage, loadAllowedOrigins, openEmbedSession, readEmbed, type OpenedEmbed } from '../../lib/embed';
import Embed from './Embed.svelte';
import { EmbedView } from './embed-view.svelte';

function showAlert(target: HTMLElement, text: string): void {
  const p = document.createElement('p');
  p.setAttribute('role', 'alert');
  p.style.padding = '1rem';
  p.textContent = text;
  target.replaceChildren(p);
}

/**
 * `#/embed`: one session for an iframe, instead of the app. The fragment is read and checked
 * before storage is touched (a refused one writes nothing); then the embed's session is found
 * or made for this page and id, and the page's API opens when the page's origin is allowed.
 * `onManager` hears the manager once storage is open (the service worker's side attaches to it).
 */
export async function startEmbed(target: HTMLElement, onManager: (manager: SessionManager) => void): Promise<void> {
  let opened: OpenedEmbed;
  try {
    opened = await readEmbed(location.hash);
  } catch (error) {
    showAlert(target, (error as Error).message);
    return;
  }
  if (opened.options.theme !== 'auto') document.documentElement.dataset.theme = opened.options.theme;
  const appUrl = location.href.replace(/#.*$/, '');
  const framed = window.parent !== window;
  const page = embedPage(
    { top: !framed, selfOrigin: location.origin, ancestorOrigins: location.ancestorOrigins, referrer: document.referrer },
    opened.options.page,
  );
  let manager: SessionManager;
  try {
    manager = await SessionManager.open();
  } catch (error) {
    showAlert(target, `PyTabs could not open its storage (IndexedDB): ${(error as Error).message}. Private browsing or blocked site data can cause this.`);
    return;
  }
  onManager(manager);
  addEventListener('pagehide', () => manager.dispose());
  try {
    const [embed, allowed] = await Promise.all([openEmbedSession(manager, page, opened.options, opened.author), loadAllowedOrigins(appUrl)]);
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
    showAlert(target, `This embed could not open its session: ${(error as Error).message}`);
  }
}
