/** A file that cannot be imported, or a prepared session that cannot be fetched; the message says why, in words. */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}
