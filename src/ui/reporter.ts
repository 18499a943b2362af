/** Where the page reports what went wrong, and what went right. */
export interface Reporter {
  notify(error: unknown): void;
  inform(text: string): void;
}
