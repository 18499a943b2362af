import { messageParts } from '../chat/blocks';
import { appendEvent, newRound } from '../chat/round';
import type { Round, RoundEvent } from '../chat/types';
import { typedLine } from '../chat/terminal';
import type { MimeBundle } from '../worker-api';
import { ImportError } from './errors';
import { said, tell } from '../i18n/said';
import { tellText } from '../i18n/text';
import { integer, list, multiline, parseJson, record, text } from './checks';
import { MAX_MESSAGE_CHARS, MAX_ROUNDS } from './limits';
import { PYODIDE_VERSION } from './manifest';

export const NOTEBOOK = 'history.ipynb';

type Output =
  | { output_type: 'stream'; name: 'stdout' | 'stderr'; text: string }
  | { output_type: 'display_data'; data: Record<string, unknown>; metadata: Record<string, never> }
  | { output_type: 'execute_result'; execution_count: number | null; data: Record<string, unknown>; metadata: Record<string, never> }
  | { output_type: 'error'; ename: string; evalue: string; traceback: string[] };

type Cell =
  | { id: string; cell_type: 'markdown'; metadata: Record<string, never>; source: string }
  | { id: string; cell_type: 'code'; metadata: Record<string, never>; source: string; execution_count: number | null; outputs: Output[] };

/** nbformat keeps JSON outputs as JSON; every other kind is text. */
const JSON_MIME = /^application\/(.*\+)?json$/;

function notebookData(bundle: MimeBundle): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [mime, value] of Object.entries(bundle)) {
    if (!JSON_MIME.test(mime)) data[mime] = value;
    else {
      try {
        data[mime] = JSON.parse(value);
      } catch {
        data['text/plain'] ??= value;
      }
    }
  }
  return data;
}

/** One code block's outputs, in the order they came. */
function blockOutputs(events: RoundEvent[], block: number, count: number | null): Output[] {
  const outputs: Output[] = [];
  const stream = (name: 'stdout' | 'stderr', text: string) => {
    const last = outputs.at(-1);
    if (last?.output_type === 'stream' && last.name === name) last.text += text;
    else outputs.push({ output_type: 'stream', name, text });
  };
  for (const event of events) {
    if (!('block' in event) || event.block !== block) continue;
    switch (event.type) {
      case 'stdout':
      case 'stderr':
        stream(event.type, event.text);
        break;
      // A notebook's outputs have no place for what was typed: it joins stdout, as a terminal showed it
      // (history.json keeps it apart).
      case 'input':
        stream('stdout', typedLine(event));
        break;
      case 'display':
        outputs.push({ output_type: 'display_data', data: notebookData(event.bundle), metadata: {} });
        break;
      case 'result':
        outputs.push({ output_type: 'execute_result', execution_count: count, data: notebookData(event.bundle), metadata: {} });
        break;
      case 'exec_error':
        outputs.push({ output_type: 'error', ename: event.error.ename, evalue: event.error.evalue, traceback: event.error.traceback.split('\n') });
        break;
      case 'truncated':
        if (event.what === 'output') {
          const cut = (event.total ?? event.limit) - (event.tail?.length ?? 0);
          stream('stdout', `\n${tell(said('lib_nb_output_cut', { count: cut }))}\n${event.tail ?? ''}`);
        } else {
          stream('stdout', `\n${tell(said('lib_nb_rich_cut'))}\n`);
        }
        break;
      // Anything else (status lines, files written, a newer kind of event) is not a notebook output.
    }
  }
  return outputs;
}

/**
 * A session's history as a Jupyter notebook (nbformat 4.5): each message's prose becomes
 * markdown cells and its Python blocks code cells with their outputs, numbered in the order
 * they ran. A question to the assistant becomes a markdown cell and the code it ran. PyTabs'
 * own words in it are in the language shown when it is made: a file has no reader yet.
 */
export function notebookFromHistory(rounds: Round[]): object {
  const cells: Cell[] = [];
  let count = 0;
  const markdown = (id: string, source: string) => {
    if (source.trim()) cells.push({ id, cell_type: 'markdown', metadata: {}, source: source.trim() });
  };
  const code = (id: string, source: string, round: Round, block: number) => {
    const ran = round.events.some((e) => e.type === 'code_start' && e.block === block);
    const n = ran ? ++count : null;
    cells.push({ id, cell_type: 'code', metadata: {}, source, execution_count: n, outputs: ran ? blockOutputs(round.events, block, n) : [] });
  };
  for (const round of rounds) {
    const id = (part: number) => `r${round.seq}-${part}`;
    let part = 0;
    const starts = new Map<number, string>();
    for (const e of round.events) if (e.type === 'code_start') starts.set(e.block, e.code);
    if ((round as { kind?: unknown }).kind === 'ask') {
      markdown(id(part++), `**${tell(said('lib_nb_question'))}** ${round.message}`);
      for (const [block, source] of starts) code(id(part++), source, round, block);
    } else {
      let block = 0;
      for (const piece of messageParts(round.message)) {
        if (piece.kind === 'prose') markdown(id(part++), piece.text);
        else {
          code(id(part++), starts.get(block) ?? piece.code, round, block);
          block++;
        }
      }
    }
    for (const e of round.events) if (e.type === 'round_error') markdown(id(part++), `**${tell(said('lib_nb_could_not_run'))}** ${tellText(e.message)}`);
  }
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      // internal: the kernel's name, which Jupyter shows as it is in every language.
      kernelspec: { name: 'python3', display_name: 'Python 3 (Pyodide)', language: 'python' },
      language_info: { name: 'python' },
      pytabs: { pyodide: PYODIDE_VERSION },
    },
    cells,
  };
}

/** Fences `code` so that splitMessage gets it back exactly: longer than any backtick run inside it. */
function fenced(code: string): string {
  const longest = Math.max(0, ...Array.from(code.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}python\n${code}\n${fence}`;
}

/** Text shown as a fenced block that nothing runs. */
const textBlock = (prose: string) => fenced(prose).replace(/python\n/, 'text\n');

/**
 * A markdown cell as prose of a message: its fenced Python examples are relabelled as text,
 * so that sending the message again runs only the notebook's code cells.
 */
function asProse(markdown: string): string {
  const parts = messageParts(markdown);
  const plain = markdown.replace(/\r\n?/g, '\n');
  if (parts.length === 1 && parts[0].kind === 'code' && parts[0].code === plain) return plain;
  return parts.map((p) => (p.kind === 'prose' ? p.text : textBlock(p.code))).join('\n');
}

const onlyCode = (message: string, code: string) => {
  const blocks = messageParts(message).filter((p) => p.kind === 'code');
  return blocks.length === 1 && blocks[0].kind === 'code' && blocks[0].code === code;
};

/** A message whose only Python is `code`, between the prose around it in the notebook. */
function messageFor(before: string[], code: string, after: string[]): string {
  if (!before.length && !after.length && onlyCode(code, code)) return code;
  const message = [...before, fenced(code), ...after].join('\n\n');
  if (onlyCode(message, code)) return message;
  // Prose with an unclosed fence of another language would swallow the code: show it as text.
  const guarded = [before, [fenced(code)], after].flatMap((p, i) => (i === 1 ? p : p.length ? [textBlock(p.join('\n\n'))] : [])).join('\n\n');
  return onlyCode(guarded, code) ? guarded : fenced(code);
}

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function bundleFrom(value: unknown, what: string): MimeBundle {
  const data = record(value, what);
  const bundle: MimeBundle = {};
  for (const [mime, content] of Object.entries(data)) {
    bundle[mime] = JSON_MIME.test(mime)
      ? text(typeof content === 'string' ? content : JSON.stringify(content), `${what} "${mime}"`, MAX_MESSAGE_CHARS)
      : multiline(content, `${what} "${mime}"`, MAX_MESSAGE_CHARS);
  }
  bundle['text/plain'] ??= '';
  return bundle;
}

function outputEvents(outputs: unknown[], what: string): RoundEvent[] {
  const events: RoundEvent[] = [];
  outputs.forEach((value, i) => {
    const o = record(value, `${what} output ${i + 1}`);
    const where = `${what} output ${i + 1}`;
    switch (o.output_type) {
      case 'stream':
        events.push({ type: o.name === 'stderr' ? 'stderr' : 'stdout', block: 0, text: multiline(o.text, `${where} "text"`, MAX_MESSAGE_CHARS) });
        break;
      case 'execute_result':
        events.push({ type: 'result', block: 0, bundle: bundleFrom(o.data, `${where} "data"`) });
        break;
      case 'display_data':
        events.push({ type: 'display', block: 0, bundle: bundleFrom(o.data, `${where} "data"`) });
        break;
      case 'error': {
        const traceback = list(o.traceback ?? [], `${where} "traceback"`, 10_000).map((line) => text(line, `${where} traceback line`, MAX_MESSAGE_CHARS));
        events.push({
          type: 'exec_error',
          block: 0,
          error: {
            ename: text(o.ename, `${where} "ename"`, 1000),
            evalue: text(o.evalue, `${where} "evalue"`, MAX_MESSAGE_CHARS),
            traceback: traceback.join('\n').replace(ANSI, ''),
          },
        });
        break;
      }
      // update_display_data and outputs of newer formats have nothing to show here.
    }
  });
  return events;
}

/**
 * A message brought in from elsewhere (a notebook, a shared link) as history that did not run
 * here: it shows the outputs `events` carry, and `importedFrom` lets the chat say so.
 */
export function importedRound(sessionId: string, seq: number, message: string, events: RoundEvent[], source: string, now: number): Round {
  const r: Round = { ...newRound(sessionId, seq, message, [], now), importedFrom: source };
  appendEvent(r, { type: 'round_start', at: now });
  for (const event of events) appendEvent(r, event);
  r.state = events.some((e) => e.type === 'exec_error') ? 'failed' : 'finished';
  r.durationMs = 0;
  appendEvent(r, { type: 'round_end', durationMs: 0, state: r.state });
  return r;
}

export interface NotebookHistory {
  rounds: Round[];
  /** The messages of the rounds that hold code, in order: what "Run all" sends. */
  runAll: string[];
}

/**
 * A Jupyter notebook (nbformat 4) as history, not run: each code cell becomes a message
 * (with the markdown cells before it as prose) showing the outputs the notebook saved.
 * Rounds carry `importedFrom`, so the chat can say they did not run here.
 */
export function historyFromNotebook(bytes: Uint8Array, sessionId: string, source: string, now = Date.now()): NotebookHistory {
  const nb = record(parseJson(bytes, source), source);
  const major = integer(nb.nbformat, `${source} "nbformat"`, 1, 1000);
  if (major !== 4) throw new ImportError(said('lib_notebook_version', { version: major }));
  const cells = list(nb.cells, `${source} "cells"`, MAX_ROUNDS);
  const pieces: { before: string[]; code: string; events: RoundEvent[] }[] = [];
  let prose: string[] = [];
  cells.forEach((value, i) => {
    const what = `${source} cell ${i + 1}`;
    const cell = record(value, what);
    const body = multiline(cell.source, `${what} "source"`, MAX_MESSAGE_CHARS).replace(/\r\n?/g, '\n');
    if (cell.cell_type === 'markdown') {
      if (body.trim()) prose.push(asProse(body));
    } else if (cell.cell_type === 'raw') {
      if (body.trim()) prose.push(textBlock(body));
    } else if (cell.cell_type === 'code') {
      if (!body.trim()) return;
      const outputs = outputEvents(list(cell.outputs ?? [], `${what} "outputs"`, 10_000), what);
      const ran = outputs.length > 0 || typeof cell.execution_count === 'number';
      const events: RoundEvent[] = ran
        ? [{ type: 'code_start', block: 0, total: 1, code: body }, ...outputs, { type: 'code_end', block: 0, durationMs: 0, notPersisted: [] }]
        : [];
      pieces.push({ before: prose, code: body, events });
      prose = [];
    } else {
      throw new ImportError(said('lib_notebook_cell_type', { what, type: String(cell.cell_type).slice(0, 50) }));
    }
  });
  const rounds: Round[] = [];
  const add = (message: string, events: RoundEvent[]) => rounds.push(importedRound(sessionId, rounds.length + 1, message, events, source, now));
  // Prose after the last code cell ends the last message; a notebook of prose only is one message.
  pieces.forEach((p, i) => add(messageFor(p.before, p.code, i === pieces.length - 1 ? prose : []), p.events));
  const runAll = rounds.map((r) => r.message);
  if (!pieces.length && prose.length) add(prose.join('\n\n'), []);
  return { rounds, runAll };
}
