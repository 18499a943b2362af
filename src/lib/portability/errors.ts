import { tellInEnglish, type Said } from '../i18n/said';

/**
 * A file that cannot be imported, or a prepared session that cannot be fetched; it says why.
 * A said reason (`said`) is told in the reader's language (errorText); `message` holds words,
 * English for a said one.
 */
export class ImportError extends Error {
  readonly said?: Said;

  constructor(reason: string | Said) {
    super(typeof reason === 'string' ? reason : tellInEnglish(reason));
    if (typeof reason !== 'string') this.said = reason;
    this.name = 'ImportError';
  }
}
