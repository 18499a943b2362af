import type { Round } from '../chat/types';
import { tellInEnglish } from '../i18n/said';
import { terminalText } from '../chat/terminal';
import { CHARS_PER_TOKEN } from './context';
import type { SentMessage, TurnMessage } from './events';

function clip(text: string, limit: number, from: 'start' | 'end' = 'start'): string {
  if (text.length <= limit) return text;
  return from === 'start' ? `${text.slice(0, limit - 1)}…` : `…${text.slice(-(limit - 1))}`;
}

/** The text of what a round printed, returned or raised, short. */
function outcome(round: Round): string {
  let streams = '';
  let value = '';
  let error = '';
  for (const e of round.events) {
    if (e.type === 'stdout' || e.type === 'stderr' || e.type === 'input') streams += terminalText(e);
    else if (e.type === 'result') value = e.bundle['text/plain'] ?? '';
    else if (e.type === 'exec_error') error = `${e.error.ename}: ${e.error.evalue}`;
    else if (e.type === 'round_error') error = typeof e.message === 'string' ? e.message : tellInEnglish(e.message);
  }
  const parts: string[] = [];
  if (streams.trim()) parts.push(`printed:\n${clip(streams.trimEnd(), 600, 'end')}`);
  if (value) parts.push(`value: ${clip(value, 400)}`);
  if (error) parts.push(`error: ${clip(error, 300)}`);
  if (round.state === 'stopped') parts.push('(stopped before it finished)');
  return parts.join('\n') || '(no output)';
}

/** One earlier round as a question and its reply. */
function exchange(round: Round): [SentMessage, SentMessage] {
  if (round.kind === 'ask') {
    const text = round.events
      .filter((e) => e.type === 'assistant_text')
      .map((e) => e.text)
      .join('')
      .trim();
    const runs = round.events.filter((e) => e.type === 'code_card' && e.status === 'ran').length;
    const note = [runs ? `(${runs} code run${runs > 1 ? 's' : ''} in the session)` : '', round.state === 'stopped' ? '(stopped)' : ''].filter(Boolean).join(' ');
    return [
      { role: 'user', content: clip(round.message, 1500) },
      { role: 'assistant', content: [clip(text, 1500, 'end') || '(no answer)', note].filter(Boolean).join('\n') },
    ];
  }
  return [
    { role: 'user', content: `I ran this code in the session myself:\n\`\`\`python\n${clip(round.message, 1500)}\n\`\`\`` },
    { role: 'assistant', content: `What it gave:\n${outcome(round)}` },
  ];
}

/**
 * The session's own earlier rounds (Code and Ask) as alternating user/assistant messages, the
 * newest that fit `budgetTokens`, oldest first. `rounds` must be this session's alone: the caller
 * reads them by the session's id.
 */
export function buildMemory(rounds: Round[], budgetTokens: number): SentMessage[] {
  const room = budgetTokens * CHARS_PER_TOKEN;
  const kept: SentMessage[][] = [];
  let used = 0;
  for (const round of [...rounds].sort((a, b) => b.seq - a.seq)) {
    const pair = exchange(round);
    const size = pair[0].content.length + pair[1].content.length;
    if (used + size > room) break;
    kept.push(pair);
    used += size;
  }
  return kept.reverse().flat();
}

const sizeOf = (messages: TurnMessage[]) => messages.reduce((n, m) => n + (m.content?.length ?? 0) + (m.role === 'assistant' ? (m.tool_calls ?? []).reduce((k, c) => k + c.function.arguments.length + c.function.name.length, 0) : 0), 0);

/**
 * Memory for a small model, whose every token of prompt costs: each earlier Ask round as it was
 * sent and answered (its `turns`), so that a follow-up's prompt is the last one's, word for word,
 * with only the new question after it, and the model reads only that. A round without its turns
 * (a Code round, one stopped or failed, one from an endpoint) is its short exchange. When the
 * rounds outgrow the budget the oldest go at once down to half of it, not one per question: the
 * start then stays the same for the next few questions, and with it what the model has read.
 */
export function buildVerbatimMemory(rounds: Round[], budgetTokens: number): TurnMessage[] {
  const room = budgetTokens * CHARS_PER_TOKEN;
  const items = [...rounds]
    .sort((a, b) => a.seq - b.seq)
    .map((round) => {
      const turns = round.state === 'finished' ? round.events.findLast((e) => e.type === 'turns') : undefined;
      const messages = turns && sizeOf(turns.messages) <= room / 2 ? turns.messages : exchange(round).map((m) => m as TurnMessage);
      return { messages, size: sizeOf(messages) };
    });
  let start = 0;
  let total = 0;
  for (const [i, item] of items.entries()) {
    total += item.size;
    if (total <= room) continue;
    while (start <= i && total > room / 2) total -= items[start++].size;
  }
  return items.slice(start).flatMap((item) => item.messages);
}
