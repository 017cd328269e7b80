/**
 * A fast reader for the plain subset of YAML that definition files are written in: block mappings and sequences,
 * one-line flow collections, one-line plain and quoted scalars, literal and folded block scalars, comments.
 * It builds the plain value directly, without `yaml`'s token stream and document nodes (4-8× cheaper per
 * definition), and gives up (`undefined`) on anything else it sees: anchors, aliases, tags, directives, tabs,
 * CR, multi-line plain, quoted or flow scalars, complex or quoted keys, duplicate keys, control characters. A
 * document it gives up on, and any definition with a problem, is read again by `yaml` with positions, so every
 * diagnostic is exactly what `yaml` alone gives. When it does return a value, that value is the one `yaml`'s
 * `toJS` gives under the YAML 1.2 core schema (`test/scanner/yaml-fast.property.test.ts` holds both equal).
 */

/** The value of a document, and where each top-level key's value starts (offsets into the text) where it is a scalar or flow collection. */
export interface FastYaml {
  value: Record<string, unknown>;
  /** top-level key → offset of its value's first character */
  offsets: Map<string, number>;
}

// what gives the fast reader up at once: tabs, CR, a BOM, C0/C1 controls, NEL and the Unicode line separators
// (`yaml` treats some as line breaks or refuses them), and the indicators of anchors, aliases, tags and directives
// are checked where they may start a node
// eslint-disable-next-line no-control-regex
const UNSUPPORTED_CHARACTERS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/** The largest text the fast reader takes on: past it, `yaml` reads it (its limits are the ones enforced). */
const MAX_FAST_BYTES = 256 * 1024;

/** Flow collections nested deeper than this are left to `yaml` (a definition may nest 64 levels in all). */
const MAX_FAST_DEPTH = 64;

class GiveUp {}
const GIVE_UP = new GiveUp();

function giveUp(): never {
  throw GIVE_UP;
}

interface Line {
  /** offset of the line's first character */
  start: number;
  /** offset just past its last character (before the newline) */
  end: number;
  /** spaces before the content */
  indent: number;
  /** whether it holds nothing but spaces or a comment */
  blank: boolean;
}

/** Reads `text` if it is in the subset; `undefined` when `yaml` must read it. */
export function parseYamlFast(text: string): FastYaml | undefined {
  if (text.length > MAX_FAST_BYTES || UNSUPPORTED_CHARACTERS.test(text)) return undefined;
  try {
    return new FastReader(text).document();
  } catch {
    // given up, or a bug of ours (a stack overflow in nesting past the depth check): `yaml` reads it
    return undefined;
  }
}

const KEY = /^[A-Za-z0-9_$][A-Za-z0-9_$.\-/]*$/;
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** A plain scalar as the core schema resolves it (in `yaml`'s order of tags). */
function resolvePlain(source: string): unknown {
  if (NULL.test(source)) return null;
  if (BOOL.test(source)) return source[0] === 't' || source[0] === 'T';
  if (INT_OCT.test(source)) return parseInt(source.substring(2), 8);
  if (INT.test(source)) return parseInt(source, 10);
  if (INT_HEX.test(source)) return parseInt(source.substring(2), 16);
  if (FLOAT_NAN.test(source)) return source.slice(-3).toLowerCase() === 'nan' ? NaN : source[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (FLOAT_EXP.test(source) || FLOAT.test(source)) return parseFloat(source);
  return source;
}

// characters that may not start a plain scalar here (`-`, `?`, `:` may when a non-space follows: `-5`, `--flag`)
const INDICATORS = new Set(['[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);

class FastReader {
  private readonly lines: Line[] = [];
  private at = 0;

  constructor(private readonly text: string) {
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      let indent = 0;
      while (start + indent < end && text.charCodeAt(start + indent) === 0x20) indent++;
      const first = start + indent < end ? text[start + indent] : undefined;
      this.lines.push({ start, end, indent, blank: first === undefined || first === '#' });
      start = end + 1;
    }
  }

  document(): FastYaml {
    this.skipBlank();
    const first = this.lines[this.at];
    // a document must be a block mapping at the left margin
    if (!first || first.indent !== 0) giveUp();
    const offsets = new Map<string, number>();
    const value = this.mapping(0, undefined, offsets);
    this.skipBlank();
    if (this.at < this.lines.length) giveUp();
    return { value, offsets };
  }

  private skipBlank(): void {
    while (this.at < this.lines.length && this.lines[this.at]!.blank) this.at++;
  }

  /**
   * A block mapping whose keys sit at column `indent`; `from` is where its first key starts when it shares a line
   * with a sequence's `- `.
   */
  private mapping(indent: number, from: number | undefined, offsets?: Map<string, number>): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    let inline = from;
    for (;;) {
      let start: number;
      if (inline !== undefined) {
        start = inline;
        inline = undefined;
      } else {
        this.skipBlank();
        const line = this.lines[this.at];
        if (!line || line.indent < indent) break;
        if (line.indent > indent) giveUp();
        start = line.start + indent;
      }
      const line = this.lines[this.at]!;
      const colon = this.text.indexOf(':', start);
      if (colon < 0 || colon >= line.end) giveUp();
      const key = this.text.slice(start, colon);
      if (!KEY.test(key) || key.length > 1000 || resolvePlain(key) !== key || key === '__proto__' || Object.hasOwn(map, key)) giveUp();
      const after = colon + 1;
      if (after < line.end && this.text.charCodeAt(after) !== 0x20) giveUp();
      map[key] = this.value(line, after, indent, true, (offset) => offsets?.set(key, offset));
    }
    return map;
  }

  /**
   * The value after a mapping's `:` or a sequence's `-` at `from` on `line`: inline, or the block on the lines
   * below (more indented than `indent`; a sequence may sit at `indent` itself under a mapping's key).
   */
  private value(line: Line, from: number, indent: number, ofKey: boolean, located: (offset: number) => void): unknown {
    let start = from;
    while (start < line.end && this.text.charCodeAt(start) === 0x20) start++;
    if (start >= line.end || this.text[start] === '#') {
      if (start < line.end && start === from) giveUp();
      this.at++;
      return this.nested(indent, ofKey);
    }
    const first = this.text[start]!;
    if (first === '|' || first === '>') return this.blockScalar(line, start, indent);
    if (first === '[' || first === '{') {
      located(start);
      const [value, end] = this.flow(start, line.end);
      this.rest(line, end);
      return value;
    }
    if (first === '"' || first === "'") {
      located(start);
      const [value, end] = this.quoted(start, line.end);
      this.rest(line, end);
      return value;
    }
    if (first === '-' && !ofKey) {
      // `- - a` or `- a: b` as a sequence's item
      if (start + 1 >= line.end || this.text.charCodeAt(start + 1) === 0x20) giveUp();
    }
    if (!ofKey && this.isMappingStart(start, line.end)) {
      // `- key: value` starts a mapping whose keys sit at this column
      return this.mapping(start - line.start, start);
    }
    located(start);
    const value = this.plain(start, line.end);
    this.at++;
    this.noContinuation(indent);
    return value;
  }

  private isMappingStart(start: number, end: number): boolean {
    const colon = this.text.indexOf(':', start);
    if (colon < 0 || colon >= end) return false;
    return colon + 1 === end || this.text.charCodeAt(colon + 1) === 0x20;
  }

  /** What follows `key:` or `-` with nothing after it on the line: a block below, or null. */
  private nested(indent: number, ofKey: boolean): unknown {
    this.skipBlank();
    const line = this.lines[this.at];
    if (!line) return null;
    const content = line.start + line.indent;
    const isItem = this.text[content] === '-' && (content + 1 === line.end || this.text.charCodeAt(content + 1) === 0x20);
    if (line.indent > indent) {
      if (isItem) return this.sequence(line.indent);
      if (this.isMappingStart(content, line.end)) return this.mapping(line.indent, undefined);
      giveUp();
    }
    if (line.indent === indent && isItem && ofKey) return this.sequence(indent);
    return null;
  }

  private sequence(indent: number): unknown[] {
    const list: unknown[] = [];
    for (;;) {
      this.skipBlank();
      const line = this.lines[this.at];
      if (!line || line.indent < indent) break;
      if (line.indent > indent) giveUp();
      const dash = line.start + indent;
      if (this.text[dash] !== '-' || (dash + 1 < line.end && this.text.charCodeAt(dash + 1) !== 0x20)) break;
      list.push(this.value(line, dash + 1, indent, false, () => undefined));
    }
    return list;
  }

  /** After a one-line value: spaces and a comment at most, then no more-indented line (a continuation). */
  private rest(line: Line, end: number): void {
    let at = end;
    while (at < line.end && this.text.charCodeAt(at) === 0x20) at++;
    if (at < line.end && (this.text[at] !== '#' || at === end)) giveUp();
    this.at++;
  }

  private noContinuation(indent: number): void {
    let next = this.at;
    while (next < this.lines.length && this.lines[next]!.blank) {
      // a comment line more indented than its parent may still be a plain scalar's continuation
      if (this.lines[next]!.start + this.lines[next]!.indent < this.lines[next]!.end && this.lines[next]!.indent > indent) giveUp();
      next++;
    }
    const line = this.lines[next];
    if (line && line.indent > indent) giveUp();
  }

  private plain(start: number, end: number): unknown {
    const first = this.text[start]!;
    if (INDICATORS.has(first)) giveUp();
    if ((first === '?' || first === ':' || first === '-') && (start + 1 >= end || this.text.charCodeAt(start + 1) === 0x20)) giveUp();
    let stop = end;
    const comment = this.text.indexOf(' #', start);
    if (comment >= 0 && comment < end) stop = comment;
    let source = this.text.slice(start, stop);
    source = source.replace(/ +$/, '');
    if (source.includes(': ') || source.endsWith(':')) giveUp();
    return resolvePlain(source);
  }

  /** A one-line flow collection from `start` (`[` or `{`) up to `end`: its value and where it closed. */
  private flow(start: number, end: number, depth = 1): [unknown, number] {
    // deeper than a definition may nest: `yaml` reports it
    if (depth > MAX_FAST_DEPTH) giveUp();
    const text = this.text;
    const open = text[start]!;
    const isMap = open === '{';
    const close = isMap ? '}' : ']';
    const list: unknown[] = [];
    const map: Record<string, unknown> = {};
    let at = start + 1;
    const spaces = (): void => {
      while (at < end && text.charCodeAt(at) === 0x20) at++;
    };
    for (;;) {
      spaces();
      if (at >= end) giveUp();
      if (text[at] === close) return [isMap ? map : list, at + 1];
      if (isMap) {
        const colon = text.indexOf(':', at);
        if (colon < 0 || colon >= end || text.charCodeAt(colon + 1) !== 0x20) giveUp();
        const key = text.slice(at, colon);
        if (!KEY.test(key) || resolvePlain(key) !== key || key === '__proto__' || Object.hasOwn(map, key)) giveUp();
        at = colon + 1;
        spaces();
        const [value, next] = this.flowItem(at, end, depth);
        map[key] = value;
        at = next;
      } else {
        const [value, next] = this.flowItem(at, end, depth);
        list.push(value);
        at = next;
      }
      spaces();
      if (at >= end) giveUp();
      if (text[at] === ',') at++;
      else if (text[at] !== close) giveUp();
    }
  }

  private flowItem(at: number, end: number, depth: number): [unknown, number] {
    const text = this.text;
    const first = text[at];
    if (first === '[' || first === '{') return this.flow(at, end, depth + 1);
    if (first === '"' || first === "'") {
      const [value, next] = this.quoted(at, end);
      // `"a": b` in a flow sequence is a pair
      if (text[next] === ':') giveUp();
      return [value, next];
    }
    if (first === undefined || INDICATORS.has(first) || first === '?' || first === ':' || first === '-' && (at + 1 >= end || text.charCodeAt(at + 1) === 0x20)) giveUp();
    let stop = at;
    while (stop < end) {
      const character = text[stop]!;
      if (character === ',' || character === ']' || character === '}' || character === '[' || character === '{') break;
      // a `:` or ` #` inside a flow scalar has rules of its own: left to `yaml`
      if (character === ':' || character === '#') giveUp();
      stop++;
    }
    const source = text.slice(at, stop).replace(/ +$/, '');
    if (source === '') giveUp();
    return [resolvePlain(source), stop];
  }

  /** A one-line quoted scalar from `start`: its value and the offset after its closing quote. */
  private quoted(start: number, end: number): [string, number] {
    const text = this.text;
    if (text[start] === "'") {
      let value = '';
      let at = start + 1;
      for (;;) {
        const quote = text.indexOf("'", at);
        if (quote < 0 || quote >= end) giveUp();
        value += text.slice(at, quote);
        if (text[quote + 1] === "'") {
          value += "'";
          at = quote + 2;
        } else {
          return [value, quote + 1];
        }
      }
    }
    let value = '';
    let at = start + 1;
    for (;;) {
      if (at >= end) giveUp();
      const character = text[at]!;
      if (character === '"') return [value, at + 1];
      if (character !== '\\') {
        let stop = at;
        while (stop < end && text[stop] !== '"' && text[stop] !== '\\') stop++;
        value += text.slice(at, stop);
        at = stop;
        continue;
      }
      const escape = text[at + 1];
      const simple = escape === undefined ? undefined : SIMPLE_ESCAPES[escape];
      if (simple !== undefined) {
        value += simple;
        at += 2;
        continue;
      }
      const length = escape === 'x' ? 2 : escape === 'u' ? 4 : escape === 'U' ? 8 : 0;
      if (length === 0) giveUp();
      const digits = text.slice(at + 2, at + 2 + length);
      if (digits.length !== length || !/^[0-9a-fA-F]+$/.test(digits)) giveUp();
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) giveUp();
      value += String.fromCodePoint(code);
      at += 2 + length;
    }
  }

  /** `|` or `>` with `-` or no chomping indicator, at `start` on `line`, and the lines below it. */
  private blockScalar(line: Line, start: number, indent: number): string {
    const text = this.text;
    const folded = text[start] === '>';
    let at = start + 1;
    let strip = false;
    if (text[at] === '-') {
      strip = true;
      at++;
    }
    // keep (`+`), an explicit indentation and anything but a comment after the header: left to `yaml`
    if (at < line.end && text.charCodeAt(at) !== 0x20) giveUp();
    while (at < line.end && text.charCodeAt(at) === 0x20) at++;
    if (at < line.end && text[at] !== '#') giveUp();
    this.at++;
    // the content's indentation is the first non-empty line's
    let first = this.at;
    while (first < this.lines.length && this.isEmpty(this.lines[first]!)) first++;
    const head = this.lines[first];
    if (!head || head.indent <= indent) giveUp();
    const column = head.indent;
    const body: string[] = [];
    for (let index = this.at; index < first; index++) {
      // leading empty lines with more spaces than the content's indentation are an error in YAML
      if (this.lines[index]!.end - this.lines[index]!.start > column) giveUp();
      body.push('');
    }
    let next = first;
    for (; next < this.lines.length; next++) {
      const current = this.lines[next]!;
      if (this.isEmpty(current)) {
        if (current.end - current.start > column) giveUp();
        body.push('');
        continue;
      }
      if (current.indent < column) break;
      body.push(text.slice(current.start + column, current.end));
    }
    // trailing empty lines belong to no one under clip and strip (they are skipped as blank lines)
    while (body.length > 0 && body[body.length - 1] === '') body.pop();
    this.at = next;
    if (body.length === 0) giveUp();
    // folding of more-indented lines and of leading empty lines: left to `yaml`
    if (folded && (body[0] === '' || body.some((item) => item.startsWith(' ')))) giveUp();
    // a line that ends the scalar must not be more indented than its parent (that would be an error)
    const after = this.lines[this.at];
    if (after && !after.blank && after.indent > indent) giveUp();
    let content: string;
    if (!folded) content = body.join('\n');
    else {
      content = '';
      for (let index = 0; index < body.length; index++) {
        const item = body[index]!;
        if (index === 0) content = item;
        else if (item === '') content += '\n';
        else content += body[index - 1] === '' ? item : ` ${item}`;
      }
    }
    return strip ? content : `${content}\n`;
  }

  private isEmpty(line: Line): boolean {
    return line.start + line.indent === line.end;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', a: '\x07', v: '\v', e: '\x1b', ' ': ' ' };
