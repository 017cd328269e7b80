import { HIDDEN_CHARACTER_CLASS, visibleEscape } from '../core/index.js';

/** Markup that is already safe: what `html` returns, and what `raw` marks as such. Anything else interpolated is escaped. */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;', '\r': '&#13;' };

/**
 * Text as HTML text or a quoted attribute value: markup characters become entities, and a carriage return a
 * character reference, since the HTML parser would turn a literal one into a line feed (output must stay exact).
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`\r]/g, (character) => ESCAPES[character]!);
}

// what reorders the text around it or shows nothing at all (core's HIDDEN_CHARACTER_CLASS), and the controls but
// tab and line feed (a browser shows most of them as nothing)
const HIDDEN = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${HIDDEN_CHARACTER_CLASS}]`, 'gu');

/**
 * Text as HTML text (not an attribute) in which every character that would reorder or hide part of it is shown as
 * its escape, marked (`\u202e` in a `<span class="hidden-character">`): for what a person reads before deciding (an
 * approval's tool, params and reason), where a right-to-left override in an agent's params would show the person
 * another path than the one that runs.
 */
export function revealed(text: string): Html {
  let markup = '';
  let from = 0;
  for (const match of text.matchAll(HIDDEN)) {
    markup += `${escapeHtml(text.slice(from, match.index))}<span class="hidden-character" title="a character that hides or reorders text">${visibleEscape(match[0])}</span>`;
    from = match.index + match[0].length;
  }
  return new Html(markup + escapeHtml(text.slice(from)));
}

/** Marks trusted markup (never text that came from a tool, a request or a definition). */
export function raw(markup: string): Html {
  return new Html(markup);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * The console's only way to make markup: a tagged template in which every interpolation is escaped, unless it is
 * `Html` (another `html` result, or an explicit `raw`); arrays are joined; null, undefined and false render nothing.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0]!;
  for (let index = 0; index < values.length; index += 1) text += render(values[index]) + strings[index + 1]!;
  return new Html(text);
}
