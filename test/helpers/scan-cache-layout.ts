// A scan cache file of layout 7 taken apart and put together again, so that tests can change one part of it (a tool's
// position, a kind, the names) or write the same scan in the layouts before (6, 5), as an older version left it.

/** The parts of a layout-7 cache file: its lines as text, its tail's numbers as arrays, its texts as strings. */
export interface CacheFileParts {
  header: string;
  entryLines: string[];
  /** the tail's first line, parsed */
  tailLine: { layout: number; byteOrder: string; tools: number; namesBytes: number; aliases: Array<[number, string[]]>; toolAliasesBytes: number | null; factsBytes: number | null; index: Record<string, unknown> | null };
  positions: number[];
  kinds: string;
  names: string[];
  /** the stored index's `toolAliases` and `facts` texts, where it keeps them */
  toolAliases: string | undefined;
  facts: string | undefined;
}

/** Takes a layout-7 file apart (what `tailChunkSteps` writes). */
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
  at += tailLine.namesBytes;
  const toolAliases = tailLine.toolAliasesBytes === null ? undefined : file.toString('utf8', at, (at += tailLine.toolAliasesBytes));
  const facts = tailLine.factsBytes === null ? undefined : file.toString('utf8', at, (at += tailLine.factsBytes));
  return { header, entryLines, tailLine, positions, kinds, names, toolAliases, facts };
}

/** A layout-7 file of these parts (`namesBytes` and the texts' sizes as given, so that a test can make them disagree). */
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
    Buffer.from(parts.toolAliases ?? '', 'utf8'),
    Buffer.from(parts.facts ?? '', 'utf8'),
  ];
  return Buffer.concat([head, ...tail, Buffer.from(`${head.length.toString(16).padStart(16, '0')}\n`, 'latin1')]);
}

/** The same scan in layout 6, as the version before wrote it: the texts inside the tail's line, none after the names. */
export function layout6Of(parts: CacheFileParts, parser: string, entryLines: readonly string[] = parts.entryLines): Buffer {
  const { toolAliasesBytes: _aliases, factsBytes: _facts, ...line } = parts.tailLine;
  const header = JSON.stringify({ ...(JSON.parse(parts.header) as object), parser });
  return cacheFileOf({ ...parts, header, entryLines: [...entryLines], tailLine: { ...line, layout: 6, index: storedTexts(parts) } as CacheFileParts['tailLine'], toolAliases: undefined, facts: undefined });
}

// the tail line's index with the texts back in it, as layouts 5 and 6 kept them
function storedTexts(parts: CacheFileParts): Record<string, unknown> | null {
  if (!parts.tailLine.index) return null;
  return { ...parts.tailLine.index, ...(parts.toolAliases !== undefined ? { toolAliases: parts.toolAliases } : {}), ...(parts.facts !== undefined ? { facts: parts.facts } : {}) };
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
  const index = parts.tailLine.index ? { tools, names: parts.names, kinds: parts.kinds, ...storedTexts(parts) } : null;
  const head = `${header}\n${entryLines.map((line) => `${line}\n`).join('')}`;
  return `${head}${JSON.stringify(index)}\n${JSON.stringify(entryLines.map((line) => line.length + 1))}\n${head.length.toString(16).padStart(16, '0')}\n`;
}
