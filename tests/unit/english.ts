// The unit tests read PyTabs in English: as a page shown in English does once its start has
// loaded the English messages (src/main.ts, startLocale), every test file starts with them.
import { setLocale } from '../../src/lib/i18n/catalog';

await setLocale('en', undefined);
