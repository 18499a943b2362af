import type { RunEvent } from '../../src/lib/worker-api';

const FLUSH_BYTES = 16 * 1024;
const FLUSH_MS = 40;

/**
 * Collects a stream's text and forwards it in chunks. Python runs synchronously in the
 * worker, so no timer can fire during a run: the flush decision is made on each write.
 */
export class OutputStream {
  private buffer = '';
  private lastFlush = 0;
  private decoder = new TextDecoder();
  /** What was written since the last newline: the line a terminal's cursor is on (an input()'s prompt). */
  private line = '';

  constructor(
    private readonly kind: 'stdout' | 'stderr',
    private readonly sink: () => ((event: RunEvent) => void) | null,
  ) {}

  /** Pyodide's Writer interface: called with the bytes Python flushed. */
  write = (bytes: Uint8Array): number => {
    const text = this.decoder.decode(bytes, { stream: true });
    this.buffer += text;
    const end = text.lastIndexOf('\n');
    this.line = end < 0 ? this.line + text : text.slice(end + 1);
    const now = Date.now();
    if (this.buffer.length >= FLUSH_BYTES || now - this.lastFlush >= FLUSH_MS) this.flush(now);
    return bytes.byteLength;
  };

  /**
   * The text on the current line, which starts again now: a run begins on a new line, and so
   * does the output after the person pressed Enter.
   */
  takeLine(): string {
    const line = this.line;
    this.line = '';
    return line;
  }

  flush(now = Date.now()): void {
    this.lastFlush = now;
    if (!this.buffer) return;
    const text = this.buffer;
    this.buffer = '';
    this.sink()?.({ type: this.kind, text });
  }
}
