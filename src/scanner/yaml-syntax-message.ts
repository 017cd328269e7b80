import type { Document } from 'yaml';
import type { YamlLocator } from './yaml-locator.js';
import { yamlModule } from './yaml-module.js';
import { imePunctuation, type ExplainedSlip } from './ime-punctuation.js';

/**
 * How definitions (and the operator's config file) are parsed: the YAML 1.2 core schema's tags only (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`,
 * `!!map`, `!!seq`), not the YAML 1.1 ones `yaml` knows besides (`!!binary`, `!!timestamp`, `!!set`, `!!omap`, …).
 */
export const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: true, resolveKnownTags: false } as const;

const CORE_TAGS = ['!!str', '!!int', '!!float', '!!bool', '!!null', '!!map', '!!seq'];

/**
 * Each tag of the document the core schema cannot resolve (an unknown one, or a core one its value does not fit), where
 * it is written; `subject` names the file in the message ('a definition', 'the config').
 */
export function unknownTags(document: Document, text: string, subject = 'a definition'): { offset: number; message: string }[] {
  return document.warnings.filter((warning) => warning.code === 'TAG_RESOLVE_FAILED').map((warning) => {
    const written = text.slice(warning.pos[0], warning.pos[1]).split(/\s/)[0]!;
    const tag = written.length > 64 ? `${written.slice(0, 64)}…` : written;
    const message = CORE_TAGS.includes(written)
      ? `YAML tag '${tag}' does not fit the value after it; remove the tag (or write the value it expects)`
      : `unknown YAML tag '${tag}': ${subject} is plain YAML 1.2, whose tags are ${CORE_TAGS.join(', ')}; remove it and write the value itself (quoted, if it is text)`;
    return { offset: warning.pos[0], message };
  });
}

/** A YAML error in our words (undefined: the library's own will do) where the library's advise its own API (parseAllDocuments) or leave out what to fix (which key). */
export function syntaxMessage(error: { code: string; message: string; pos: [number, number] }, document: Document, locator: YamlLocator, label: string, line: number): string | undefined {
  if (error.code === 'MULTIPLE_DOCS') return `${/^[A-Z]/.test(label) ? `a ${label}` : label} holds one YAML document: remove the \`---\` at line ${line}`;
  if (error.code === 'DUPLICATE_KEY') {
    const duplicate = duplicateKeyAt(document, error.pos[0]);
    if (duplicate) return `key '${duplicate.key.length > 64 ? `${duplicate.key.slice(0, 64)}…` : duplicate.key}' is written twice in one mapping (first at line ${locator.at(duplicate.firstOffset).line}): keep one`;
  }
  if (error.code === 'BLOCK_AS_IMPLICIT_KEY') {
    const key = colonInPlainValue(locator, error.pos[0]);
    if (key !== undefined) return `the value of '${key}' holds ': ', which YAML reads as the start of a mapping inside it: quote the whole value (${key}: "…")`;
  }
  return undefined;
}

// the key of a line `key: value` whose unquoted value holds ': ' at (or after) the offset given: `intent: Print the date: in ISO`
function colonInPlainValue(locator: YamlLocator, offset: number): string | undefined {
  const line = locator.lineText(offset);
  const written = /^\s*(?:-\s+)?([A-Za-z_][\w.-]{0,63}):\s+([^'"\s[{|>&*!#][^#]*)$/.exec(line);
  return written && written[2]!.includes(': ') ? written[1] : undefined;
}

/**
 * yaml's own check that a mapping writes no key twice (`uniqueKeys`) compares each key with every earlier one of its
 * mapping: a 0.9 MB definition of 90,000 keys held a scan 3.5 minutes of CPU, on the event loop in a small registry
 * (review Z14, Z14-3). Parsed with `uniqueKeys: false`, the document gets the same DUPLICATE_KEY errors from this, a
 * set per mapping (the same equality: scalar keys of equal values), each placed among the others by its offset.
 */
export function withDuplicateKeys(document: Document): void {
  const { isMap, isScalar, visit, YAMLParseError } = yamlModule();
  const found: InstanceType<typeof YAMLParseError>[] = [];
  visit(document, {
    Map(_key, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key) || !pair.key.range) continue;
        const value = pair.key.value;
        // yaml compares values with ===: NaN is never the same key
        if (typeof value === 'number' && Number.isNaN(value)) continue;
        const identity = `${typeof value}\u0000${String(value)}`;
        if (!seen.has(identity)) seen.add(identity);
        else found.push(new YAMLParseError([pair.key.range[0], pair.key.range[0] + 1], 'DUPLICATE_KEY', 'Map keys must be unique'));
      }
    },
  });
  if (found.length === 0) return;
  // merged by offset in one pass (a hostile text may hold a duplicate on every line), the others' order kept
  found.sort((a, b) => a.pos[0] - b.pos[0]);
  const others = document.errors.splice(0);
  let next = 0;
  for (const other of others) {
    while (next < found.length && found[next]!.pos[0] < other.pos[0]) document.errors.push(found[next++]!);
    document.errors.push(other);
  }
  while (next < found.length) document.errors.push(found[next++]!);
}

// the key a DUPLICATE_KEY error points at, and where the same key was first written in its mapping
function duplicateKeyAt(document: Document, offset: number): { key: string; firstOffset: number } | undefined {
  const { isMap, isScalar, visit } = yamlModule();
  let found: { key: string; firstOffset: number } | undefined;
  visit(document, {
    Map(_key, map) {
      if (!isMap(map)) return undefined;
      const first = new Map<string, number>();
      for (const pair of map.items) {
        if (!isScalar(pair.key) || !pair.key.range) continue;
        const key = String(pair.key.value);
        if (pair.key.range[0] === offset && first.has(key)) {
          found = { key, firstOffset: first.get(key)! };
          return visit.BREAK;
        }
        if (!first.has(key)) first.set(key, pair.key.range[0]);
      }
      return undefined;
    },
  });
  return found;
}

/**
 * The slips `yaml` reports as errors that do not name them, each told once where it is: input-method punctuation (one
 * per line), an outdented list, a comment inside a flow list.
 */
export function explainedSlips(text: string, errors: ReadonlyArray<{ code: string; message: string; pos: [number, number] }>): ExplainedSlip[] {
  const typed = imePunctuation(text, errors);
  const rest = errors.filter((error) => !typed.some((slip) => slip.explains(error)));
  const other = rest.length === 0 ? undefined : outdentedList(text, rest) ?? commentInFlow(text);
  return other ? [...typed, other] : typed;
}

/**
 * ` #` inside a flow list or mapping written on one line (`examples: [notify #ops, …]`) starts a YAML comment, which
 * takes the closing `]` with it; `yaml` then reports an unclosed list at the end of the file (review userZ7, F2). Told
 * at the `#`, with what to quote; the errors after it are its consequences.
 */
function commentInFlow(text: string): ExplainedSlip | undefined {
  for (let start = 0, number = 1; start < text.length; number++) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? undefined : end);
    const hash = flowComment(line);
    if (hash !== undefined) {
      const after = line.slice(hash).search(/[,\]}]/);
      const item = line.slice(Math.max(line.lastIndexOf(',', hash), line.lastIndexOf('[', hash), line.lastIndexOf('{', hash)) + 1, after < 0 ? undefined : hash + after).trim();
      const offset = start + hash;
      return {
        offset,
        message: `' #' inside [ … ] starts a YAML comment, so the rest of line ${number}, its closing bracket too, is not read: quote the item that holds it ("${item.length > 40 ? `${item.slice(0, 40)}…` : item}")`,
        explains: ({ pos }) => pos[0] >= offset,
      };
    }
    if (end < 0) break;
    start = end + 1;
  }
  return undefined;
}

// where a line's ' #' falls inside a flow collection the line opened and did not close (outside quotes), if it does
function flowComment(line: string): number | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let at = 0; at < line.length; at++) {
    const char = line[at]!;
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      if (depth > 0 && /[\s,[{]/.test(line[at - 1] ?? ' ')) quote = char;
    } else if (char === '#' && /\s/.test(line[at - 1] ?? ' ')) {
      return depth > 0 ? at : undefined;
    } else if (char === '[' || char === '{') {
      if (depth > 0 || at === 0 || /[\s:,-]/.test(line[at - 1]!)) depth++;
    } else if ((char === ']' || char === '}') && depth > 0) depth--;
  }
  return undefined;
}

/**
 * A list written less indented than the key it belongs to (`  argv:` then `- ls` at column 1), which `yaml` reports
 * as three errors about implicit keys (review userY, Y7): one error at the first item instead, saying how far to
 * indent it, and the errors it explains.
 */
function outdentedList(text: string, errors: ReadonlyArray<{ code: string; pos: [number, number] }>): ExplainedSlip | undefined {
  for (const error of errors) {
    if (error.code !== 'BLOCK_AS_IMPLICIT_KEY') continue;
    const lineStart = text.lastIndexOf('\n', error.pos[0] - 1) + 1;
    const lineEnd = text.indexOf('\n', lineStart);
    const key = /^(\s*(?:-\s+)?)([^\s#'"{[][^#]*?):\s*(?:#.*)?$/.exec(text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd));
    if (!key || lineEnd < 0) continue;
    const item = nextContentLine(text, lineEnd + 1);
    if (!item || !/^-(\s|$)/.test(item.content) || item.indent >= key[1]!.length) continue;
    const name = key[2]!.trim();
    const line = text.slice(0, lineStart).split('\n').length;
    const itemEnd = text.indexOf('\n', item.offset);
    return {
      offset: item.offset,
      message: `the list under '${name}' (line ${line}) is indented less than '${name}' itself, so YAML cannot read it as its value: indent each '- ' item at least as far as '${name}' (column ${key[1]!.length + 1})`,
      explains: ({ pos }) => pos[0] >= error.pos[0] && pos[0] <= (itemEnd < 0 ? text.length : itemEnd),
    };
  }
  return undefined;
}

// the next line holding more than blanks or a comment: where it starts, its indentation and what follows it
function nextContentLine(text: string, from: number): { offset: number; indent: number; content: string } | undefined {
  for (let start = from; start < text.length; ) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? undefined : end);
    const content = line.trimStart();
    if (content !== '' && !content.startsWith('#')) return { offset: start + line.length - content.length, indent: line.length - content.length, content };
    if (end < 0) return undefined;
    start = end + 1;
  }
  return undefined;
}
