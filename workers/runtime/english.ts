import { knowEnglish } from '../../src/lib/i18n/catalog';
import { tellWith, type Said } from '../../src/lib/i18n/said';
import { ENGLISH_PYTHON } from '../../src/lib/i18n/python-english';
import {
  libb_file_exists,
  libb_no_file,
  lib2_db_gone,
  lib2_db_newer,
  lib_path_absolute,
  lib_path_backslash,
  lib_path_bad_char,
  lib_path_control,
  lib_path_empty,
  lib_path_empty_segment,
  lib_path_leaves,
  lib_path_nul,
  lib_path_too_long,
  rt_index_other_abi,
  rt_index_unreadable,
  rt_package_download_failed,
  rt_package_failed,
  rt_package_not_installed,
  rt_package_offline,
  rt_package_unreachable,
} from '../../src/lib/i18n/paraglide/messages/en.js';

// The messages below by name: the worker bundles these, not the whole English catalog.
const ENGLISH = {
  ...ENGLISH_PYTHON,
  rt_package_download_failed,
  rt_package_failed,
  rt_package_not_installed,
  rt_package_offline,
  rt_package_unreachable,
  // Why a package index was not used, inside a package failure's evalue.
  rt_index_other_abi,
  rt_index_unreadable,
  // A file refused here (the page checks first, so these are rarely seen; only a message crosses).
  lib_path_absolute,
  lib_path_backslash,
  lib_path_bad_char,
  lib_path_control,
  lib_path_empty,
  lib_path_empty_segment,
  lib_path_leaves,
  lib_path_nul,
  lib_path_too_long,
  libb_file_exists,
  libb_no_file,
  // The database could not be opened (src/lib/storage/db.ts words it with tellInEnglish).
  lib2_db_gone,
  lib2_db_newer,
};
knowEnglish(ENGLISH);

/**
 * A text of this worker in English, where the API has words beside the said text the page
 * tells (a reading step's status text, a package failure's evalue, as a page error's is), and
 * an error's message, the only part of it that crosses to the page.
 */
export function inEnglish(text: Said): string {
  return tellWith(ENGLISH, text);
}
