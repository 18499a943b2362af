import { formatBytes } from '../format';
import { BASE_LOCALE, LANGUAGE_NAMES, type Locale } from '../i18n/locales';
import type { VariableInfo, WorkspaceEntry } from '../worker-api';

/** Tokens are estimated at about four characters each: enough to keep a budget, no tokenizer needed. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** What the context is built from: one session's state, read for this round. */
export interface SessionSnapshot {
  files: WorkspaceEntry[];
  variables: VariableInfo[];
  sessionVars: Record<string, string>;
  /** The configured package index, or empty for the default CDN. */
  packageIndexUrl: string;
}

/** Whether the model gets tools, or is asked for fenced python blocks instead. */
export type CodeChannel = 'tools' | 'fenced';

/**
 * The system message for a small model in the browser, whose every token of prompt costs (it
 * reads about ten a second there): the same facts in a few lines, and nothing of the session,
 * so that it is the same text in every round of every session and its state is read once per
 * loaded model. The session's files and variables go with each question (smallModelQuestion).
 */
export function smallModelSystem(locale: Locale = BASE_LOCALE): string {
  return [
    'You are the assistant of PyTabs. You answer questions about the person’s data by running Python (Pyodide) in their session; variables and files stay between runs.',
    'Keep code short and print what you need. Then answer in plain words with the numbers you found.',
    answerIn(locale),
    '## Environment',
    '- The working directory holds the files listed with each question. read_excel(path) reads .xlsx/.csv as a list of dicts; pandas, numpy and matplotlib can be imported; there is no network.',
  ].join('\n');
}

/**
 * A small model's question: the session's files and variables as they are now, then the
 * question. They come with the question rather than in the system message because they change
 * as code runs, and text that changes makes the model read everything after it again.
 */
export function smallModelQuestion(snapshot: SessionSnapshot, question: string, budgetTokens: number, locale: Locale = BASE_LOCALE): string {
  // The budget is the system message's and the state's together, as buildContext's is.
  const room = Math.max(0, budgetTokens * CHARS_PER_TOKEN - smallModelSystem(locale).length - 2);
  return `${sessionState(snapshot, room)}\n\n## Question\n${question}`;
}

/** The English names models know best, for the languages of the pseudo-locales too (they read as English). */
const MODEL_LANGUAGE: Record<Locale, string> = {
  en: 'English',
  fr: 'French',
  es: 'Spanish',
  de: 'German',
  'pt-BR': 'Brazilian Portuguese',
  uk: 'Ukrainian',
  'zh-CN': 'Simplified Chinese',
  ar: 'Arabic',
  'en-XA': 'English',
  'ar-XB': 'English',
};

/** The line that has the model answer in the person's language: the language PyTabs is shown in. */
export function answerIn(locale: Locale): string {
  const name = MODEL_LANGUAGE[locale];
  const own = LANGUAGE_NAMES[locale];
  return `Answer in ${name}${own !== name && !locale.includes('-X') ? ` (${own})` : ''}, the language the person reads PyTabs in; code, names and outputs stay as they are.`;
}

function instructions(channel: CodeChannel, locale: Locale): string {
  const how =
    channel === 'tools'
      ? 'To run Python, call the run_python tool with the code; list_variables and list_files show the current state. You see each run’s output and may run more code.'
      : 'To run Python, reply with one fenced ```python block; it is run and you get its output in the next message. When you have the answer, reply without a python block.';
  return [
    'You are the assistant of PyTabs, a Python workspace in the browser. You answer questions about the person’s data by running Python in their session.',
    how,
    'Variables and files stay in the session between runs and between questions. Keep code short; print what you need to see. When you have the answer, give it in plain words with the numbers you found, without repeating all the code.',
    answerIn(locale),
  ].join('\n');
}

function environment(packageIndexUrl: string): string {
  const index = packageIndexUrl || 'the Pyodide CDN';
  return [
    '## Environment',
    '- Python 3 on Pyodide, in the browser; the working directory is the session’s workspace (the files below).',
    '- Builtins, no import needed: read_excel(path, sheet_name=None) reads .xlsx/.xls/.ods/.csv as lists of dicts (a dict of sheets when sheet_name is None); write_excel(path, data) writes them; get_session_var(name, default=None) reads a session variable; display(obj) shows a value, table or figure. pandas.read_excel and DataFrame.to_excel work through the same reader.',
    `- import of a package from the Pyodide distribution (numpy, pandas, matplotlib, …) loads it from the package index (${index}); pip is not available.`,
    '- No network from code: requests to other sites fail. Figures from matplotlib are shown to the person; you are told "[figure shown]".',
  ].join('\n');
}

interface Section {
  title: string;
  lines: string[];
  empty: string;
  /** Share of the room left for this and the sections after it. */
  share: number;
  more: (n: number) => string;
}

function clip(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** A section's title and as many of its lines as fit `room`, with a line saying how many were left out. */
function fit(section: Section, room: number): string {
  const out = [`## ${section.title}`];
  if (!section.lines.length) {
    out.push(section.empty);
    return out.join('\n');
  }
  let used = out[0].length + 1;
  let shown = 0;
  for (const line of section.lines) {
    const rest = section.lines.length - shown - 1;
    const need = line.length + 1 + (rest > 0 ? section.more(rest).length + 1 : 0);
    if (used + need > room) break;
    out.push(line);
    used += line.length + 1;
    shown++;
  }
  if (shown < section.lines.length) out.push(section.more(section.lines.length - shown));
  return out.join('\n');
}

/**
 * The system message of a round: what the assistant is and may do, the environment, and the
 * session's state (sessionState), bounded to about `budgetTokens`.
 */
export function buildContext(snapshot: SessionSnapshot, channel: CodeChannel, budgetTokens: number, locale: Locale = BASE_LOCALE): string {
  const head = `${instructions(channel, locale)}\n\n${environment(snapshot.packageIndexUrl)}`;
  return `${head}\n\n${sessionState(snapshot, Math.max(0, budgetTokens * CHARS_PER_TOKEN - head.length - 2))}`;
}

/**
 * The session's workspace files, variables (type, size, preview: a DataFrame's shape, columns and
 * dtypes) and session variables in about `roomChars`. Lists too long for it are cut with a line
 * saying how many were left out (list_files / list_variables give the rest).
 */
function sessionState(snapshot: SessionSnapshot, roomChars: number): string {
  const files = [...snapshot.files].sort((a, b) => a.path.localeCompare(b.path));
  const sections: Section[] = [
    {
      title: `Workspace files (${files.length})`,
      lines: files.map((f) => `- ${clip(f.path, 200)} (${formatBytes(f.size)})`),
      empty: '(none)',
      share: 0.35,
      more: (n) => `- … and ${n} more (call list_files)`,
    },
    {
      title: `Variables (${snapshot.variables.length})`,
      lines: snapshot.variables.map((v) => `- ${v.name}: ${v.type}, ${formatBytes(v.sizeBytes)} — ${clip(v.preview, 300)}`),
      empty: '(none yet)',
      share: 0.75,
      more: (n) => `- … and ${n} more (call list_variables)`,
    },
    {
      title: `Session variables (${Object.keys(snapshot.sessionVars).length}), read with get_session_var`,
      lines: Object.entries(snapshot.sessionVars).map(([k, v]) => `- ${clip(k, 100)} = ${clip(JSON.stringify(v), 200)}`),
      empty: '(none)',
      share: 1,
      more: (n) => `- … and ${n} more`,
    },
  ];
  let room = roomChars;
  const parts: string[] = [];
  for (const section of sections) {
    const text = fit(section, Math.floor(room * section.share));
    parts.push(text);
    room = Math.max(0, room - text.length - 2);
  }
  return parts.join('\n\n');
}
