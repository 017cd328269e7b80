/**
 * The characters that reorder the text around them or show nothing at all, as a regular expression's class body
 * (for the `u` flag): the bidirectional embeddings, overrides, isolates and marks (LRM, RLM, ALM), the line and
 * paragraph separators, the zero-width space, word joiner and the invisible operators, the deprecated format
 * characters (U+206A-206F), the byte order mark, the interlinear annotation characters, the Hangul fillers (blank
 * letters, used to make names that look empty or like another) and the tag characters (which spell ASCII invisibly:
 * text written for a model to read and a person not to). The zero-width joiner and non-joiner are not among them:
 * scripts and emoji need them. What a person reads before deciding (a terminal, the console) shows each as its escape.
 */
export const HIDDEN_CHARACTER_CLASS = '\\u061c\\u115f\\u1160\\u200b\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}';

/** How such a character (or a control) is written visibly: `\x1b`, `\u202e`, `\u{e0041}`. */
export function visibleEscape(character: string): string {
  const code = character.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * Plain text in which every character that would reorder or hide part of it, and every control but tab and line
 * feed, is written as its escape (`\u202e`): for plain-text views a person decides on, such as an MCP client's
 * elicitation prompt (the console's `revealed` is the same for HTML, the CLI's `terminalSafe` for terminals).
 */
export function revealHidden(text: string): string {
  return mapHidden(text, visibleEscape);
}

/**
 * `text` with each character `hiddenCharacters` finds in it — the very set a definition may not hold, so that what an
 * operator's view shows is what `hldp validate` refuses (review Z8, Z8-6: the views escaped a narrower list, and a run
 * of variation selectors, U+00AD or U+180E reached them as nothing) — a carriage return always, and with `controls:
 * 'all'` tab and line feed too, written by `hidden` one character at a time; the text between by `plain`.
 */
export function mapHidden(text: string, hidden: (character: string) => string, plain: (segment: string) => string = (segment) => segment, controls: 'all' | 'but-tab-and-line-feed' = 'but-tab-and-line-feed'): string {
  const all = controls === 'all';
  if (!all && !MAYBE_HIDDEN.test(text)) return plain(text);
  let out = '';
  let from = 0;
  for (const match of text.matchAll(all ? INVISIBLE_OR_CONTROL : INVISIBLE_CHARACTERS)) {
    const index = match.index;
    const codePoint = match[0].codePointAt(0)!;
    if ((codePoint === 0x200c || codePoint === 0x200d) && joins(text, index)) continue;
    if ([...match[0]].length === 1 && isVariationSelector(codePoint) && picksAVariant(text, index, codePoint)) continue;
    out += plain(text.slice(from, index)) + [...match[0]].map(hidden).join('');
    from = index + match[0].length;
  }
  return out + plain(text.slice(from));
}

// every character a definition may not hold as it is, before the context that allows a joiner or a variation selector
// is looked at: a run of variation selectors (one picks a glyph's form; a run carries bytes no one sees), the controls
// but tab and line feed, the format characters (bidi controls, zero-width characters, tags, the soft hyphen, …), lone
// surrogates, the line and paragraph separators, every default-ignorable code point (what a renderer shows nothing for:
// the combining grapheme joiner, Khmer's inherent vowels, Mongolian's selectors, the unassigned tags up to U+E0FFF;
// review Y, Y5) and what HIDDEN_CHARACTER_CLASS adds (the Hangul fillers)
const INVISIBLE_SOURCE = `[\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}]{2,}|[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\p{Cf}\\p{Cs}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}${HIDDEN_CHARACTER_CLASS}]`;

/** {@link INVISIBLE_SOURCE} for `String.replace`: the characters a writer of definitions must escape (joiners included). */
export const INVISIBLE_CHARACTERS = new RegExp(INVISIBLE_SOURCE, 'gu');
// …and tab and line feed: a terminal's line is one line of the view
const INVISIBLE_OR_CONTROL = new RegExp(`${INVISIBLE_SOURCE}|[\\t\\n]`, 'gu');

/** One character, or run of variation selectors, hidden in a definition's text. */
export interface HiddenCharacter {
  /** UTF-16 offset in the text */
  index: number;
  codePoint: number;
}

// anything but tab, line feed, printable ASCII, Latin-1 but the soft hyphen, the Latin extensions, Greek and Cyrillic,
// the visible general punctuation (dashes, quotes, …), arrows and mathematical signs, CJK punctuation and kana, the
// unified ideographs, the Hangul syllables and the fullwidth forms: none of these is hidden, so a text of them alone
// needs no closer look (a carriage return does)
const MAYBE_HIDDEN = /[^\t\n\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u0370-\u04ff\u2010-\u2027\u2030-\u205e\u2190-\u22ff\u3001-\u30ff\u4e00-\u9fff\uac00-\ud7a3\uff01-\uff9f]/;

// what a zero-width joiner or non-joiner may sit between: letters and marks of the scripts that need them (Persian,
// the Indic scripts, …) and emoji (👨‍👩‍👧, 🏳️‍🌈); never ASCII, where it only splits a word a reader or a filter sees whole
const JOINABLE = /^[\p{L}\p{M}\p{Extended_Pictographic}\p{Emoji_Modifier}\ufe0f]$/u;

/**
 * The characters of `text` that a person does not see and a model reads, or that reorder or steer what is shown: controls
 * but tab and line feed (and the carriage return of a CRLF line end), format characters, line separators, Hangul fillers,
 * runs of variation selectors. A zero-width joiner or non-joiner between two non-ASCII letters, marks or emoji is not one.
 */
export function hiddenCharacters(text: string): HiddenCharacter[] {
  // every definition is checked at each cold scan: text of printable ASCII, line ends and the common CJK blocks alone
  // (most definitions) holds none, and this plain class tells so ~10× faster than the Unicode classes below
  if (!MAYBE_HIDDEN.test(text)) return [];
  const found: HiddenCharacter[] = [];
  for (const match of text.matchAll(INVISIBLE_CHARACTERS)) {
    const index = match.index;
    const codePoint = match[0].codePointAt(0)!;
    if (codePoint === 0x0d && text[index + 1] === '\n') continue;
    if ((codePoint === 0x200c || codePoint === 0x200d) && joins(text, index)) continue;
    if ([...match[0]].length === 1 && isVariationSelector(codePoint) && picksAVariant(text, index, codePoint)) continue;
    found.push({ index, codePoint });
  }
  return found;
}

function joins(text: string, index: number): boolean {
  const before = String.fromCodePoint(text.codePointAt(index - 1) ?? 0x20);
  // the code point before: a low surrogate ends an astral character that starts one unit earlier
  const previous = /[\udc00-\udfff]/.test(before) && index >= 2 ? String.fromCodePoint(text.codePointAt(index - 2)!) : before;
  const next = String.fromCodePoint(text.codePointAt(index + 1) ?? 0x20);
  return [previous, next].every((character) => character.codePointAt(0)! > 0x7f && JOINABLE.test(character));
}

const isVariationSelector = (code: number): boolean => (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef) || (code >= 0x180b && code <= 0x180f && code !== 0x180e);

// what a single variation selector may follow: an emoji or symbol (❤️, ☺︎), a mathematical sign, a CJK ideograph (the
// ideographic variation sequences of Japanese names), and for Mongolian's free selectors a Mongolian letter; never a
// Latin letter or digit, where one selector a letter carries a byte no one sees (review Y, Y5)
const VARIANT_BASE = /^[\p{Extended_Pictographic}\p{Emoji_Presentation}\p{So}\p{Sm}\p{Ideographic}]$/u;
const MONGOLIAN = /^\p{Script=Mongolian}$/u;

function picksAVariant(text: string, index: number, codePoint: number): boolean {
  const before = text.codePointAt(index - 1);
  if (before === undefined) return false;
  const previous = before >= 0xdc00 && before <= 0xdfff && index >= 2 ? String.fromCodePoint(text.codePointAt(index - 2)!) : String.fromCodePoint(before);
  if (codePoint >= 0x180b && codePoint <= 0x180f) return MONGOLIAN.test(previous);
  return previous.codePointAt(0)! > 0x7f && VARIANT_BASE.test(previous);
}

/** False when `text` surely holds nothing `hiddenCharacters` finds (printable ASCII, line ends, the common scripts): a fast path. */
export function mayHoldHidden(text: string): boolean {
  return MAYBE_HIDDEN.test(text);
}

/** What kind of hidden character `codePoint` is, for a message: "U+202E (a bidirectional control)". */
export function describeHidden(codePoint: number): string {
  const name = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const kind =
    codePoint >= 0xe0000 && codePoint <= 0xe007f ? 'a tag character, which spells ASCII no one sees'
    : (codePoint >= 0x202a && codePoint <= 0x202e) || (codePoint >= 0x2066 && codePoint <= 0x2069) || codePoint === 0x200e || codePoint === 0x200f || codePoint === 0x061c ? 'a bidirectional control, which reorders the text around it'
    : (codePoint >= 0x200b && codePoint <= 0x200d) || codePoint === 0x2060 || codePoint === 0xfeff ? 'a zero-width character'
    : (codePoint >= 0xfe00 && codePoint <= 0xfe0f) || (codePoint >= 0xe0100 && codePoint <= 0xe01ef) ? 'a variation selector after a character without variants, or the first of a run of them'
    : codePoint <= 0x9f ? 'a control character'
    : 'an invisible or format character';
  return `${name} (${kind})`;
}
