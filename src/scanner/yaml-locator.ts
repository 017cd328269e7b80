import type { Document, LineCounter, Node as YamlNode } from 'yaml';
import { yamlModule } from './yaml-module.js';

/** A 1-based position in a source file. */
export interface Position {
  line: number;
  column: number;
}

/** Where a JSON path, or an offset, sits in a definition's text. */
export interface Locator {
  /** Position of the value at `path`, or of its key when `key` is set; falls back to the nearest ancestor. */
  locate(path: ReadonlyArray<string | number>, key?: boolean): Position;
  /** Position of an offset in the text. */
  at(offset: number): Position;
  /** Position of the `occurrence`-th (0-based) `text` written inside the value at `path`; undefined when it cannot be told. */
  within?(path: ReadonlyArray<string | number>, text: string, occurrence: number): Position | undefined;
}

/** Finds where a JSON path (as ajv reports it) sits in the YAML text, so diagnostics point at the right line. */
export class YamlLocator implements Locator {
  constructor(
    private readonly document: Document,
    private readonly lineCounter: LineCounter,
    /** the parsed text, for {@link within}; without it `within` tells nothing */
    private readonly text?: string,
  ) {}

  /** Position of the value at `path`, or of its key when `key` is set; falls back to the nearest ancestor. */
  locate(path: ReadonlyArray<string | number>, key = false): Position {
    return this.walk(path, key).best;
  }

  /** Position of the `occurrence`-th (0-based) `text` written inside the value at `path`; undefined when it cannot be told. */
  within(path: ReadonlyArray<string | number>, text: string, occurrence: number): Position | undefined {
    const range = this.walk(path, false).range;
    if (!range || this.text === undefined || text === '') return undefined;
    const written = this.text.slice(range[0], range[1]);
    let at = -1;
    for (let count = 0; count <= occurrence; count += 1) {
      at = written.indexOf(text, at + 1);
      if (at < 0) return undefined;
    }
    return this.at(range[0] + at);
  }

  // the node at `path` (its range when the whole path was found) and the nearest position on the way
  private walk(path: ReadonlyArray<string | number>, key: boolean): { best: Position; range?: readonly [number, number] } {
    const { isMap, isScalar, isSeq } = yamlModule();
    let node: unknown = this.document.contents;
    let best = this.positionOf(node) ?? { line: 1, column: 1 };
    for (let depth = 0; depth < path.length; depth++) {
      const segment = path[depth]!;
      const last = depth === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
        if (!pair) return { best };
        const target = last && key ? pair.key : (pair.value ?? pair.key);
        best = this.positionOf(target) ?? this.positionOf(pair.key) ?? best;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment];
        best = this.positionOf(item) ?? best;
        node = item;
      } else {
        return { best };
      }
    }
    const range = (node as YamlNode | undefined)?.range;
    return range ? { best, range: [range[0], range[1]] } : { best };
  }

  /** The line of the parsed text that holds an offset, without its line break ('' without the text). */
  lineText(offset: number): string {
    if (this.text === undefined) return '';
    const start = this.text.lastIndexOf('\n', offset - 1) + 1;
    const end = this.text.indexOf('\n', offset);
    return this.text.slice(start, end < 0 ? undefined : end).replace(/\r$/, '');
  }

  /** Position of a byte offset in the text. */
  at(offset: number): Position {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line, column: col };
  }

  private positionOf(node: unknown): Position | undefined {
    const range = (node as YamlNode | undefined)?.range;
    return range ? this.at(range[0]) : undefined;
  }
}

/** Splits an ajv instancePath (`/a/0/b`) into segments, numbers where the segment is an index. */
export function splitInstancePath(instancePath: string): Array<string | number> {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}
