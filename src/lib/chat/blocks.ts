/** A piece of a message that is run as Python. */
export interface CodeBlock {
  code: string;
}

/** Fence info strings that mean Python; an unlabelled fence counts too, as in most chat tools. */
const PYTHON_LANGS = new Set(['', 'python', 'py', 'python3', 'py3', 'ipython', 'pycon']);

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;

/**
 * A piece of a message: Python to run (with `line`, the message's line its code starts on, from 1,
 * so a line of the block is found in the message), or prose for the reader (Markdown, fences of
 * other languages included).
 */
export type MessagePart = { kind: 'code'; code: string; line: number } | { kind: 'prose'; text: string };

/**
 * Splits a message into the code to run, in order. A message with no fence is
 * Python as a whole; a Markdown message runs only its fenced Python blocks
 * (prose and other languages are for the reader). Fences follow CommonMark: a
 * block closes at a fence of the same character at least as long, or at the end.
 */
export function splitMessage(message: string): CodeBlock[] {
  return messageParts(message).flatMap((part) => (part.kind === 'code' ? [{ code: part.code }] : []));
}

/** The message in order as prose and Python, by the rules of `splitMessage` (an empty Python block is prose). */
export function messageParts(message: string): MessagePart[] {
  const lines = message.replace(/\r\n?/g, '\n').split('\n');
  if (!lines.some((l) => FENCE_OPEN.test(l))) {
    return message.trim() ? [{ kind: 'code', code: message.replace(/\r\n?/g, '\n'), line: 1 }] : [];
  }
  const parts: MessagePart[] = [];
  let prose: string[] = [];
  const endProse = () => {
    if (prose.join('').trim()) parts.push({ kind: 'prose', text: prose.join('\n') });
    prose = [];
  };
  let i = 0;
  while (i < lines.length) {
    const start = i;
    const open = FENCE_OPEN.exec(lines[i]);
    i++;
    if (!open) {
      prose.push(lines[i - 1]);
      continue;
    }
    const fence = open[1];
    const lang = open[2].toLowerCase();
    const indent = lines[i - 1].length - lines[i - 1].trimStart().length;
    const body: string[] = [];
    while (i < lines.length) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[i]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      // CommonMark strips up to the opening fence's indentation from each content line.
      body.push(lines[i].replace(new RegExp(`^ {0,${indent}}`), ''));
      i++;
    }
    i++;
    const code = body.join('\n');
    if (PYTHON_LANGS.has(lang) && code.trim()) {
      endProse();
      parts.push({ kind: 'code', code, line: start + 2 });
    } else {
      prose.push(...lines.slice(start, Math.min(i, lines.length)));
    }
  }
  endProse();
  return parts;
}
