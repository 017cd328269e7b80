// The one-line values of the fast YAML reader (`yaml-fast.ts`): plain scalars as the core schema resolves them,
// single- and double-quoted scalars, and flow collections. Each gives up on what it does not
// read exactly as `yaml` would (see `giveUp`), and the whole document is then left to `yaml`.

// what the fast reader throws to leave a document to `yaml`
class GiveUp {}
const GIVE_UP = new GiveUp();

/** Leaves the whole document to `yaml`: what the fast reader does not read exactly as `yaml` would. */
export function giveUp(): never {
  throw GIVE_UP;
}

/** Flow collections nested deeper than this are left to `yaml` (a definition may nest 64 levels in all). */
const MAX_FAST_DEPTH = 64;

/** A key the fast reader takes as it stands (a quoted or complex key is left to `yaml`). */
export const KEY = /^[A-Za-z0-9_$][A-Za-z0-9_$.\-/]*$/;
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** A plain scalar as the core schema resolves it (in `yaml`'s order of tags). */
export function resolvePlain(source: string): unknown {
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

/** A one-line plain scalar from `start` up to `end` (a comment after ` #` left out), resolved as the core schema does. */
export function readPlain(text: string, start: number, end: number): unknown {
  const first = text[start]!;
  if (INDICATORS.has(first)) giveUp();
  if ((first === '?' || first === ':' || first === '-') && (start + 1 >= end || text.charCodeAt(start + 1) === 0x20)) giveUp();
  let stop = end;
  const comment = text.indexOf(' #', start);
  if (comment >= 0 && comment < end) stop = comment;
  let source = text.slice(start, stop);
  source = source.replace(/ +$/, '');
  if (source.includes(': ') || source.endsWith(':')) giveUp();
  return resolvePlain(source);
}

/** A one-line flow collection from `start` (`[` or `{`) up to `end`: its value and where it closed. */
export function readFlow(text: string, start: number, end: number, depth = 1): [unknown, number] {
  // deeper than a definition may nest: `yaml` reports it
  if (depth > MAX_FAST_DEPTH) giveUp();
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
      const [value, next] = readFlowItem(text, at, end, depth);
      map[key] = value;
      at = next;
    } else {
      const [value, next] = readFlowItem(text, at, end, depth);
      list.push(value);
      at = next;
    }
    spaces();
    if (at >= end) giveUp();
    if (text[at] === ',') at++;
    else if (text[at] !== close) giveUp();
  }
}

function readFlowItem(text: string, at: number, end: number, depth: number): [unknown, number] {
  const first = text[at];
  if (first === '[' || first === '{') return readFlow(text, at, end, depth + 1);
  if (first === '"' || first === "'") {
    const [value, next] = readQuoted(text, at, end);
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
export function readQuoted(text: string, start: number, end: number): [string, number] {
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

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f', a: '\x07', v: '\v', e: '\x1b', ' ': ' ' };
