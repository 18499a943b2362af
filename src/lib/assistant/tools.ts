import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { formatBytes } from '../format';
import type { VariableInfo, WorkspaceEntry } from '../worker-api';

/** The tools the model gets, after the python_repl API (python_repl, python_list_variables, …). */
export const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'run_python',
      description:
        'Runs Python code in the person’s session (Pyodide) and returns its output: stdout, stderr, the value of the last expression, the error if any, files written. Variables persist between runs.',
      parameters: {
        type: 'object',
        properties: { code: { type: 'string', description: 'The Python code to run.' } },
        required: ['code'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'list_variables',
      description: 'Lists the session’s variables with type, size and a short preview.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
  },
  {
    type: 'function',
    function: {
      name: 'list_files',
      description: 'Lists the files in the session’s workspace (the working directory) with their sizes.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
  },
];

export const TOOL_NAMES = TOOLS.map((t) => (t.type === 'function' ? t.function.name : ''));

/** The code of a run_python call, or why its arguments could not be read. */
export function parseRunArguments(text: string): { code: string } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const code = (value as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return { error: 'no "code" string in them' };
  if (!code.trim()) return { error: 'the "code" string is empty' };
  return { code };
}

export function describeVariables(variables: VariableInfo[]): string {
  if (!variables.length) return 'No variables yet.';
  return variables
    .map((v) => `${v.name}: ${v.type}, ${formatBytes(v.sizeBytes)} — ${v.preview}${v.persisted ? '' : ` (not saved: ${v.reason ?? 'not persisted'})`}`)
    .join('\n');
}

export function describeFiles(files: WorkspaceEntry[]): string {
  if (!files.length) return 'The workspace is empty.';
  return [...files]
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((f) => `${f.path} (${formatBytes(f.size)})`)
    .join('\n');
}
