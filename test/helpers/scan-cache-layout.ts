// A scan cache file of layout 6 taken apart and put together again, so that tests can change one part of it (a tool's
// position, a kind, the names) or write the same scan in the layout before (5), as an older version left it.

/** The parts of a layout-6 cache file: its lines as text, its tail's numbers as arrays. */
export interface CacheFileParts {
  header: string;
  entryLines: string[];
  /** the tail's first line, parsed */
  tailLine: { layout: number; byteOrder: string; tools: number; namesBytes: number; aliases: Array<[number, string[]]>; index: Record<string, unknown> | null };
  positions: number[];
  kinds: string;
  names: string[];
}

/** Takes a layout-6 file apart (what `tailChunks` writes). */
export function cacheFileParts(file: Buffer): CacheFileParts {
  const tailStart = Number.parseInt(file.toString('latin1', file.length - 17, file.length - 1), 16);
  const header = file.toString('latin1', 0, file.indexOf(0x0a));
  const entryLines = file.toString('latin1', header.length + 1, tailStart - 1).split('\n').filter((_, at, all) => all.length > 1 || all[0] !== '');
  const lineEnd = file.indexOf(0x0a, tailStart);
  const tailLine = JSON.parse(file.toString('latin1', tailStart, lineEnd)) as CacheFileParts['tailLine'];
  let at = lineEnd + 1 + 8 * (entryLines.length + 1);
  const positions = Array.from({ length: tailLine.tools }, (_, tool) => file.readUInt32LE(at + 4 * tool));
  at += 4 * tailLine.tools;
  const kinds = tailLine.index ? file.toString('latin1', at, (at += entryLines.length)) : '';
  const names = tailLine.tools === 0 ? [] : file.toString('utf8', at, at + tailLine.namesBytes).split('\n').slice(0, -1);
  return { header, entryLines, tailLine, positions, kinds, names };
}

/** A layout-6 file of these parts (`namesBytes` as given, so that a test can make it disagree). */
export function cacheFileOf(parts: CacheFileParts): Buffer {
  const head = Buffer.from(`${parts.header}\n${parts.entryLines.map((line) => `${line}\n`).join('')}`, 'latin1');
  const starts = new Float64Array(parts.entryLines.length + 1);
  starts[0] = parts.header.length + 1;
  parts.entryLines.forEach((line, at) => (starts[at + 1] = starts[at]! + line.length + 1));
  const positions = Uint32Array.from(parts.positions);
  const tail = [
    Buffer.from(`${JSON.stringify(parts.tailLine)}\n`, 'latin1'),
    Buffer.from(starts.buffer),
    Buffer.from(positions.buffer),
    Buffer.from(parts.kinds, 'latin1'),
    Buffer.from(parts.names.map((name) => `${name}\n`).join(''), 'utf8'),
  ];
  return Buffer.concat([head, ...tail, Buffer.from(`${head.length.toString(16).padStart(16, '0')}\n`, 'latin1')]);
}

/**
 * The same scan in layout 5, as the version before wrote it: the header (with `parser`), the entries, the stored index
 * as one line of JSON (each tool its entry's position, or the position and the aliases it kept), the lines' lengths
 * as a JSON array, and the trailer.
 */
export function layout5Of(parts: CacheFileParts, parser: string, entryLines: readonly string[] = parts.entryLines): string {
  const header = JSON.stringify({ ...(JSON.parse(parts.header) as object), parser });
  const aliases = new Map(parts.tailLine.aliases);
  const tools = parts.positions.map((position, at) => (aliases.has(at) ? [position, aliases.get(at)] : position));
  const index = parts.tailLine.index ? { tools, names: parts.names, kinds: parts.kinds, ...parts.tailLine.index } : null;
  const head = `${header}\n${entryLines.map((line) => `${line}\n`).join('')}`;
  return `${head}${JSON.stringify(index)}\n${JSON.stringify(entryLines.map((line) => line.length + 1))}\n${head.length.toString(16).padStart(16, '0')}\n`;
}
