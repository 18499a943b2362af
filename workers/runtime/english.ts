import { knowEnglish } from '../../src/lib/i18n/catalog';
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
  w3_commit_failed,
  w3_commit_quota,
} from '../../src/lib/i18n/paraglide/messages/en.js';

/**
 * The English of the session worker's own texts, by name: the worker bundles these, not the whole
 * English catalog. Given to catalog.ts (knowEnglish) when this module loads, so that here, as on
 * a page in English, `tellInEnglish` and a SaidError's message word them: an error's message (for
 * logs; its said text crosses to the page beside it), a reading step's status text, a package
 * failure's evalue. session.worker.ts imports this module for that.
 */
export const WORKER_ENGLISH = {
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
  // A run's changes not saved (session.ts): the API's commitError, beside its said text.
  w3_commit_failed,
  w3_commit_quota,
};
knowEnglish(WORKER_ENGLISH);
