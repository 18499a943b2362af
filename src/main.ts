import { mount } from 'svelte';
import App from './ui/App.svelte';
import { SessionManager } from './lib';

declare global {
  interface Window {
    /** The app's TypeScript API, for the console and end-to-end tests. */
    pytabs?: SessionManager;
  }
}

const target = document.getElementById('app')!;
const manager = await SessionManager.open();
window.pytabs = manager;
addEventListener('pagehide', () => manager.dispose());
mount(App, { target, props: { manager } });
