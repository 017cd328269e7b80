import { createHash } from 'node:crypto';

// one array or object being written: its members (an object's keys in code-point order), and which comes next
type Frame = { items: readonly unknown[]; keys?: undefined; next: number } | { items: Record<string, unknown>; keys: string[]; next: number; wrote: boolean };

// what JSON.stringify would write in place of a value with a toJSON method (a Date: its ISO text)
function jsonOf(value: unknown): unknown {
  let current = value;
  while (current !== null && typeof current === 'object' && typeof (current as { toJSON?: unknown }).toJSON === 'function') current = (current as { toJSON: () => unknown }).toJSON();
  return current;
}

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';

/**
 * JSON text of one value with object keys in code-point order; undefined (and functions) dropped from objects, null
 * in arrays, as JSON.stringify does. Iterative, with its own stack, into one list of pieces: a value nested 100,000
 * deep is written in linear time, not a stack overflow (a receipt whose text cannot be written cannot be stored).
 */
function write(root: unknown): string | undefined {
  const first = jsonOf(root);
  if (!isContainer(first)) return JSON.stringify(first);
  let value: object = first;
  const out: string[] = [];
  const stack: Frame[] = [];
  for (;;) {
    // value is an array or an object here: open it
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ items: value, next: 0 });
    } else {
      out.push('{');
      // sorted by hand: a JS object lists integer-like keys ("2", "10") first, whatever order they were added in
      stack.push({ items: value as Record<string, unknown>, keys: Object.keys(value).sort(), next: 0, wrote: false });
    }
    // write members until one is a container, closing every container that has none left
    for (;;) {
      const frame = stack.at(-1);
      if (frame === undefined) return out.join('');
      const member = nextMember(frame, out);
      if (member !== undefined) {
        value = member;
        break;
      }
      out.push(frame.keys === undefined ? ']' : '}');
      stack.pop();
    }
  }
}

// writes the frame's scalar members up to its next container member, which it returns (its key and comma written)
function nextMember(frame: Frame, out: string[]): object | undefined {
  if (frame.keys === undefined) {
    while (frame.next < frame.items.length) {
      if (frame.next > 0) out.push(',');
      const item = jsonOf(frame.items[frame.next]);
      frame.next += 1;
      if (isContainer(item)) return item;
      out.push(JSON.stringify(item) ?? 'null');
    }
    return undefined;
  }
  while (frame.next < frame.keys.length) {
    const key = frame.keys[frame.next]!;
    const item = jsonOf(frame.items[key]);
    frame.next += 1;
    const text = isContainer(item) ? '' : JSON.stringify(item);
    if (text === undefined) continue;
    out.push(frame.wrote ? ',' : '', JSON.stringify(key), ':', text);
    frame.wrote = true;
    if (isContainer(item)) return item;
  }
  return undefined;
}

/** JSON with object keys sorted (code-point order) at every depth, no spaces, undefined members left out: equal params, equal text. */
export function canonicalJson(value: unknown): string {
  return write(value) ?? 'null';
}

/** SHA-256 (hex) of the canonical JSON of the params. */
export function hashParams(params: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(params)).digest('hex');
}
