import { toolNameAt, toolsOf, type MatchOutcome, type ToolIndex, type UsageEvent } from '../core/index.js';

/** How a request was answered before the agent called a tool anyway. */
export type MissedAs = 'found: false' | 'low confidence' | 'other tools first';

/** One request text proposed for a tool, and the evidence for it. */
export interface SuggestedText {
  text: string;
  /** how many times an agent called the tool soon after asking this */
  count: number;
  /** in how many sessions */
  sessions: number;
  /** by how many principals (`--min` counts these): one agent's many sessions are one voice */
  principals: number;
  /** their names, sorted; {@link UNKNOWN_PRINCIPAL} for events stored before the principal was recorded */
  by: string[];
  /** how the request had been answered, each way at most once */
  answered: MissedAs[];
  last_at: string;
}

/** What one tool's author could add, for review: longer requests as examples, short ones as aliases. */
export interface ExampleSuggestion {
  tool: string;
  /** the tool's definition, e.g. `tools/git-ops/TOOL.hdlp` */
  path: string;
  examples: SuggestedText[];
  aliases: SuggestedText[];
}

/** How requests are paired with calls. */
export interface SuggestOptions {
  /** a call counts only this soon after the request (default 10 minutes) */
  windowMs?: number;
  /** a text is proposed once this many distinct principals asked it (default 1) */
  minCount?: number;
}

/** The principal of events stored before it was recorded: all of them count as this one. */
export const UNKNOWN_PRINCIPAL = '(unrecorded)';

const DEFAULT_WINDOW_MS = 10 * 60 * 1000;
// a request of one or two words (or a Chinese or Japanese phrase of up to four characters) reads as
// another name for the tool, a longer one as an example of what it is asked
const ALIAS_WORDS = 2;
const ALIAS_IDEOGRAPHS = 4;
const IDEOGRAPH = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu;

interface Pending {
  intent: string;
  at: number;
  tools: string[];
  outcome: MatchOutcome;
}

/**
 * Pairs each request that matched a tool weakly or not at all with the first successful call the same
 * session made within the window after it, before its next request, and proposes the request's text for
 * the called tool. A call that did not run successfully (refused, invalid params, a failed run, a
 * non-zero exit) is no evidence that the request meant that tool: it is not counted, and the request
 * waits for the next call. A text is proposed once `minCount` distinct principals asked it. A request answered confidently with the called tool first is already served and is
 * left out, as is a text the tool already lists, or a tool the index no longer has.
 */
export function suggestExamples(events: readonly UsageEvent[], index: ToolIndex, options: SuggestOptions = {}): ExampleSuggestion[] {
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const pending = new Map<string, Pending>();
  const found = new Map<string, Map<string, { text: string; sessions: Set<string>; principals: Set<string>; count: number; answered: Set<MissedAs>; last: string }>>();
  const ordered = [...events].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  for (const event of ordered) {
    if (event.kind === 'match') {
      pending.set(event.session, { intent: event.intent, at: Date.parse(event.at), tools: event.tools, outcome: event.outcome });
      continue;
    }
    if (event.ok === false) continue;
    const asked = pending.get(event.session);
    pending.delete(event.session);
    if (asked === undefined || Date.parse(event.at) - asked.at > windowMs) continue;
    const missed = missedAs(asked, event.tool);
    if (missed === undefined) continue;
    const key = normalise(asked.intent);
    const byText = found.get(event.tool) ?? new Map();
    found.set(event.tool, byText);
    const entry = byText.get(key) ?? { text: asked.intent.trim(), sessions: new Set(), principals: new Set(), count: 0, answered: new Set(), last: event.at };
    entry.count += 1;
    entry.sessions.add(event.session);
    entry.principals.add(event.principal ?? UNKNOWN_PRINCIPAL);
    entry.answered.add(missed);
    entry.last = event.at;
    byText.set(key, entry);
  }
  const suggestions: ExampleSuggestion[] = [];
  // by name first: only the tools called are made (the index's others are not read)
  const tools = toolsOf(index);
  for (let position = 0; position < tools.length; position++) {
    const byText = found.get(toolNameAt(tools, position)!);
    if (byText === undefined) continue;
    const tool = tools.at(position)!;
    const known = new Set([...tool.examples, ...tool.aliases, tool.name, tool.intent].map(normalise));
    const texts = [...byText.entries()]
      .filter(([key, entry]) => !known.has(key) && entry.principals.size >= (options.minCount ?? 1))
      .map(([, entry]): SuggestedText => ({
        text: entry.text,
        count: entry.count,
        sessions: entry.sessions.size,
        principals: entry.principals.size,
        by: [...entry.principals].sort(),
        answered: [...entry.answered],
        last_at: entry.last,
      }))
      .sort((a, b) => b.principals - a.principals || b.count - a.count || b.sessions - a.sessions || (a.text < b.text ? -1 : 1));
    if (texts.length === 0) continue;
    suggestions.push({ tool: tool.name, path: tool.source.path, examples: texts.filter((t) => !isAlias(t.text)), aliases: texts.filter((t) => isAlias(t.text)) });
  }
  return suggestions;
}

function missedAs(asked: Pending, tool: string): MissedAs | undefined {
  if (asked.outcome === 'none') return 'found: false';
  if (asked.outcome === 'low') return 'low confidence';
  return asked.tools[0] === tool ? undefined : 'other tools first';
}

function isAlias(text: string): boolean {
  const words = text.trim().split(/\s+/);
  return words.length <= ALIAS_WORDS && words.every((word) => (word.match(IDEOGRAPH) ?? []).length <= ALIAS_IDEOGRAPHS);
}

function normalise(text: string): string {
  return text.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ');
}
