export { LANGUAGES, PSEUDO_LANGUAGES, LANGUAGE_NAMES, BASE_LOCALE, direction, matchLocale, exactLocale, resolveLocale, type Locale, type LocaleSource } from './locales';
export { LANGUAGE_KEY, SITE_FILE, readChosenLocale, writeChosenLocale, loadSiteLocale } from './preference';
export { messages, currentLocale, onLocaleChange, setLocale, type Messages } from './catalog';
export { formatBytes, formatDuration, formatDateTime, formatAgo, formatCount } from './format';
export { startLocale, automaticLocale, chooseLocale } from './start';
export { said, isSaid, tell, tellInEnglish, errorText, SaidError, type Said, type SaidValue, type MessageKey } from './said';
export { tellText, type Text } from './text';
