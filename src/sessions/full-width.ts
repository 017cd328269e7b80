// Full-width forms in `TOOL_CALL` lines: models writing Chinese or Japanese often type `TOOL_CALL：name｜{"a"："b"}` (review U11-14).

/** The full-width ASCII block (U+FF01-U+FF5E) and the ideographic space, written as ASCII; every other character is kept. */
export function halfWidth(text: string): string {
  return text.replace(/[\uFF01-\uFF5E\u3000]/g, (char) => (char === '\u3000' ? ' ' : String.fromCharCode(char.charCodeAt(0) - 0xfee0)));
}

// outside strings: full-width JSON punctuation and spaces; the quotes a model may open a string with
const PUNCTUATION: Record<string, string> = { '｛': '{', '｝': '}', '［': '[', '］': ']', '：': ':', '，': ',', '\u3000': ' ' };
const CLOSES: Record<string, string> = { '"': '"', '＂': '＂', '“': '”“', '”': '”“' };

/**
 * JSON a model wrote with full-width punctuation (`｛“op”：“log”，“limit”：3｝`) as ASCII JSON: outside strings the braces,
 * brackets, colon, comma and ideographic space are made ASCII; a string opened by `＂`, `“` or `”` is closed by its match and
 * written with ASCII quotes. What is inside a string is kept as written. Called only on text that is not JSON already.
 */
export function asciiJson(text: string): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    const closes = CLOSES[char];
    if (closes === undefined) {
      out += PUNCTUATION[char] ?? char;
      index += 1;
      continue;
    }
    // a string: kept as written up to its closing quote; an ASCII quote inside a non-ASCII-quoted one is escaped
    out += '"';
    index += 1;
    while (index < text.length && !closes.includes(text[index]!)) {
      const inner = text[index]!;
      if (inner === '\\' && index + 1 < text.length) {
        out += inner + text[index + 1];
        index += 2;
        continue;
      }
      out += inner === '"' ? '\\"' : inner;
      index += 1;
    }
    if (index < text.length) {
      out += '"';
      index += 1;
    }
  }
  return out;
}
