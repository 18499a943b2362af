import { assistantEndpoint } from '../lib/assistant';
import type { SettingsStore } from '../lib/storage/settings';

/** Whether the assistant's endpoint is set on this device, for the page to offer Ask by default. */
export class AssistantStatus {
  configured = $state(false);

  constructor(private readonly store: SettingsStore) {}

  /** Reads the endpoint again (after Settings saved it). */
  async load(): Promise<void> {
    this.configured = (await assistantEndpoint(this.store)).configured;
  }
}

const statuses = new WeakMap<SettingsStore, AssistantStatus>();

/** The one status per database, shared by Settings and every session's composer. */
export function assistantStatus(store: SettingsStore): AssistantStatus {
  let status = statuses.get(store);
  if (!status) {
    status = new AssistantStatus(store);
    statuses.set(store, status);
    void status.load().catch(() => undefined);
  }
  return status;
}
