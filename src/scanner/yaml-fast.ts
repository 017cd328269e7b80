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

import { giveUp, KEY, readFlow, readPlain, readQuoted, resolvePlain } from './yaml-fast-inline.js';

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
      const [value, end] = readFlow(this.text, start, line.end);
      this.rest(line, end);
      return value;
    }
    if (first === '"' || first === "'") {
      located(start);
      const [value, end] = readQuoted(this.text, start, line.end);
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
    const value = readPlain(this.text, start, line.end);
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
