/**
 * The Python runtime's own messages in English, for a session's worker (its words until a
 * session's start sends the reader's) and the worker's English texts. A module of its own: the
 * page imports none of English unless it shows English.
 */
import { pythonTemplates, type PythonKey } from './python';
// By name, not the whole module: a session's worker bundles these few English messages, not the catalog.
import {
  rt_py_text,
  rt_py_cannot_read,
  rt_py_cannot_write,
  rt_py_in_cell,
  rt_py_no_sheet,
  rt_py_not_column_letter,
  rt_py_bad_header,
  rt_py_usecols_missing,
  rt_py_names_count,
  rt_py_unwritable,
  rt_py_sheet_shape,
  rt_py_csv_one_sheet,
  rt_py_write_extension,
  rt_py_xl_password,
  rt_py_xl_damaged,
  rt_py_xl_unpacks_to,
  rt_py_xl_sheet_spans,
  rt_py_xl_parsing,
  rt_py_xl_not_zip,
  rt_py_xl_sheet_rows,
  rt_py_xl_reading,
  rt_py_xl_one_value,
  rt_py_xl_a_time,
  rt_py_xl_a_duration,
  rt_py_xl_not_in_ods,
  rt_py_xl_no_sheet,
  rt_py_xl_too_many_cells,
  rt_py_xl_sheet_name,
  rt_py_xl_format,
  rt_py_turtle_no_tk,
  rt_py_turtle_postscript,
  rt_py_turtle_no_folder,
  rt_py_turtle_exists,
  rt_py_turtle_give_number,
  rt_py_turtle_at_least,
  rt_py_turtle_at_most,
  rt_py_turtle_no_events,
  rt_py_turtle_image_data,
  rt_py_turtle_no_images,
  rt_py_figure_failed,
  rt_py_repr_cut,
  rt_py_keep_by_import,
  rt_py_keep_by_definition,
  rt_py_keep_lambda,
  rt_py_keep_local,
  rt_py_keep_generator,
  rt_py_keep_file,
  rt_py_keep_module,
  rt_py_keep_needs,
  rt_py_keep_not_rerun,
  rt_py_keep_pickle_missing,
  rt_py_keep_pickle_unloadable,
  rt_py_keep_over_variable,
  rt_py_keep_over_session,
  rt_py_keep_cannot_pickle,
  rt_py_keep_found_in,
  rt_py_turtle_not_kept,
  rt_py_output_cut,
  rt_py_password_prompt,
  rt_py_w3_input_no_channel,
  rt_py_w3_input_in_check,
  rt_py_w3_input_relay_lost,
  rt_py_w3_input_not_served,
} from './paraglide/messages/en.js';

/** The English of every Python message; svelte-check fails here when the catalog gains one this lacks. */
export const ENGLISH_PYTHON = { rt_py_text, rt_py_cannot_read, rt_py_cannot_write, rt_py_in_cell, rt_py_no_sheet, rt_py_not_column_letter, rt_py_bad_header, rt_py_usecols_missing, rt_py_names_count, rt_py_unwritable, rt_py_sheet_shape, rt_py_csv_one_sheet, rt_py_write_extension, rt_py_xl_password, rt_py_xl_damaged, rt_py_xl_unpacks_to, rt_py_xl_sheet_spans, rt_py_xl_parsing, rt_py_xl_not_zip, rt_py_xl_sheet_rows, rt_py_xl_reading, rt_py_xl_one_value, rt_py_xl_a_time, rt_py_xl_a_duration, rt_py_xl_not_in_ods, rt_py_xl_no_sheet, rt_py_xl_too_many_cells, rt_py_xl_sheet_name, rt_py_xl_format, rt_py_turtle_no_tk, rt_py_turtle_postscript, rt_py_turtle_no_folder, rt_py_turtle_exists, rt_py_turtle_give_number, rt_py_turtle_at_least, rt_py_turtle_at_most, rt_py_turtle_no_events, rt_py_turtle_image_data, rt_py_turtle_no_images, rt_py_figure_failed, rt_py_repr_cut, rt_py_keep_by_import, rt_py_keep_by_definition, rt_py_keep_lambda, rt_py_keep_local, rt_py_keep_generator, rt_py_keep_file, rt_py_keep_module, rt_py_keep_needs, rt_py_keep_not_rerun, rt_py_keep_pickle_missing, rt_py_keep_pickle_unloadable, rt_py_keep_over_variable, rt_py_keep_over_session, rt_py_keep_cannot_pickle, rt_py_keep_found_in, rt_py_turtle_not_kept, rt_py_output_cut, rt_py_password_prompt, rt_py_w3_input_no_channel, rt_py_w3_input_in_check, rt_py_w3_input_relay_lost, rt_py_w3_input_not_served } satisfies { [K in PythonKey]: unknown };

/** The Python runtime's messages in English: its words until a session's start sends the reader's. */
export function englishPythonMessages(): Record<string, string> {
  return pythonTemplates(ENGLISH_PYTHON);
}

