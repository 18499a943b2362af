import { tellWith, type Said } from '../../src/lib/i18n/said';
import { ENGLISH_PYTHON } from '../../src/lib/i18n/python';
import { rt_package_download_failed, rt_package_failed, rt_package_not_installed, rt_package_offline, rt_package_unreachable } from '../../src/lib/i18n/paraglide/messages/en.js';

// The messages below by name: the worker bundles these, not the whole English catalog.
const ENGLISH = { ...ENGLISH_PYTHON, rt_package_download_failed, rt_package_failed, rt_package_not_installed, rt_package_offline, rt_package_unreachable };

/**
 * A text of this worker in English, where the API has words beside the said text the page
 * tells (a reading step's status text, a package failure's evalue, as a page error's is).
 */
export function inEnglish(text: Said): string {
  return tellWith(ENGLISH, text);
}
