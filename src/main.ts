import { mount } from 'svelte';
import App from './ui/App.svelte';
import './ui/app.css';
import { SessionManager } from './lib';
import { startAppServiceWorker } from './lib/offline/service-worker';
import UpdateBanner from './ui/UpdateBanner.svelte';

declare global {
  interface Window {
    /** The app's TypeScript API, for the console and end-to-end tests. */
    pytabs?: SessionManager;
  }
}

const target = document.getElementById('app')!;
try {
  const manager = await SessionManager.open();
  window.pytabs = manager;
  addEventListener('pagehide', () => manager.dispose());
  mount(App, { target, props: { manager } });
  // Offline use and updates (src/sw.ts); the banner sits above the app, outside its layout.
  const banner = document.createElement('div');
  target.before(banner);
  mount(UpdateBanner, { target: banner, props: { worker: startAppServiceWorker(manager) } });
} catch (error) {
  // Without storage there is no app; say why instead of leaving a blank page.
  const p = document.createElement('p');
  p.setAttribute('role', 'alert');
  p.style.padding = '2rem';
  p.textContent = `PyTabs could not open its storage (IndexedDB): ${error instanceof Error ? error.message : String(error)}. Private browsing or blocked site data can cause this.`;
  target.replaceChildren(p);
}
