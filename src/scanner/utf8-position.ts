/** Where the first byte that is not UTF-8 sits in a file's content, as a diagnostic counts it (line and column from 1). */
export interface BadByte {
  line: number;
  column: number;
  /** the byte itself, e.g. 0xE4 (a Latin-1 'ä') */
  byte: number;
}

const utf8 = new TextDecoder('utf-8');

/**
 * The first byte of `content` that does not begin or continue a well-formed UTF-8 sequence (overlong forms, surrogates
 * and code points past U+10FFFF included, as a fatal `TextDecoder` refuses them), or undefined when it is all UTF-8.
 */
export function firstBadByte(content: Uint8Array): BadByte | undefined {
  const offset = badOffset(content);
  if (offset === undefined) return undefined;
  // the bytes before it are UTF-8: its column counts the characters of its line before it, as a YAML position does
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset; index++) {
    if (content[index] === 0x0a) [line, lineStart] = [line + 1, index + 1];
  }
  return { line, column: utf8.decode(content.subarray(lineStart, offset)).length + 1, byte: content[offset]! };
}

function badOffset(content: Uint8Array): number | undefined {
  let index = 0;
  while (index < content.length) {
    const first = content[index]!;
    if (first < 0x80) {
      index++;
      continue;
    }
    // the length of the sequence and the range its second byte may take (RFC 3629's table)
    const [length, low, high] =
      first >= 0xc2 && first <= 0xdf ? [2, 0x80, 0xbf]
      : first === 0xe0 ? [3, 0xa0, 0xbf]
      : first === 0xed ? [3, 0x80, 0x9f]
      : first >= 0xe1 && first <= 0xef ? [3, 0x80, 0xbf]
      : first === 0xf0 ? [4, 0x90, 0xbf]
      : first === 0xf4 ? [4, 0x80, 0x8f]
      : first >= 0xf1 && first <= 0xf3 ? [4, 0x80, 0xbf]
      : [0, 0, 0];
    if (length === 0 || index + length > content.length) return index;
    const second = content[index + 1]!;
    if (second < low || second > high) return index;
    for (let next = index + 2; next < index + length; next++) if (content[next]! < 0x80 || content[next]! > 0xbf) return index;
    index += length;
  }
  return undefined;
}
