/**
 * Characters a name may hold that a message would show as nothing, or that reorder what comes
 * after them: controls (C0, DEL, C1), format characters (zero-width ones, bidirectional
 * overrides and isolates, the byte-order mark, soft hyphens), line and paragraph separators,
 * and lone surrogates.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

function escape(char: string): string {
  const code = char.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * A file's (or variable's) name in double quotes for a message, with each invisible character
 * written as its escape (`"bad\x07name.txt"`), so the person reads the name it really is.
 */
export function quoteName(name: string): string {
  return `"${String(name).replace(INVISIBLE, escape)}"`;
}
