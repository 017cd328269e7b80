import { mapHidden, mayHoldHidden, revealHidden, visibleEscape } from '../core/index.js';

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


/**
 * Text as HTML text (not an attribute) in which every character that would reorder or hide part of it is shown as
 * its escape, marked (`\u202e` in a `<span class="hidden-character">`): for what a person reads before deciding (an
 * approval's tool, params and reason), where a right-to-left override in an agent's params would show the person
 * another path than the one that runs.
 */
export function revealed(text: string): Html {
  // what hides text is what `hldp validate` refuses in a definition (core's `hiddenCharacters`; review Z8, Z8-6)
  return new Html(mapHidden(text, marked, escapeHtml));
}

// in a whole page: what `hldp validate` refuses in a definition (core's `hiddenCharacters`: what reorders or hides
// text, the controls a browser shows as nothing); tab and line feed are shown, and a carriage return is already a
// character reference, kept so that output stays exact
// elements whose content the parser reads as text, never markup: a character there is written as its escape, unmarked
const TEXT_ONLY_ELEMENT = /^<(title|textarea)[\s>]/i;

const marked = (character: string): string => `<span class="hidden-character" title="a character that hides or reorders text">${visibleEscape(character)}</span>`;

/**
 * A whole page, markup made by `html`, with every character that would reorder or hide text (a right-to-left
 * override, an isolate, a zero-width space, a control) shown as its escape wherever a person reads it: marked in
 * text, plain in a title; attribute values are left exact (a filter box keeps the text as typed). The markup is the
 * console's own, every interpolated text escaped, so a `<` always opens one of its tags: a scan from tag to tag is
 * exact. One pass where the page is sent covers every view, so that no view can forget it (review N, N17).
 */
export function revealHiddenCharacters(markup: string): string {
  if (!mayHoldHidden(markup)) return markup;
  let out = '';
  let at = 0;
  while (at < markup.length) {
    const open = markup.indexOf('<', at);
    const textEnd = open === -1 ? markup.length : open;
    out += mapHidden(markup.slice(at, textEnd), marked);
    if (open === -1) break;
    const close = tagEnd(markup, open);
    const tag = markup.slice(open, close);
    out += tag;
    at = close;
    const textOnly = TEXT_ONLY_ELEMENT.exec(tag);
    if (textOnly) {
      const end = markup.toLowerCase().indexOf(`</${textOnly[1]!.toLowerCase()}`, at);
      const contentEnd = end === -1 ? markup.length : end;
      out += revealHidden(markup.slice(at, contentEnd));
      at = contentEnd;
    }
  }
  return out;
}

/** Where the tag opened at `open` ends (after its `>`), skipping quoted attribute values. */
function tagEnd(markup: string, open: number): number {
  let quote = '';
  for (let index = open + 1; index < markup.length; index += 1) {
    const character = markup[index]!;
    if (quote) {
      if (character === quote) quote = '';
    } else if (character === '"' || character === "'") quote = character;
    else if (character === '>') return index + 1;
  }
  return markup.length;
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
