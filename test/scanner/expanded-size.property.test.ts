import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXPANDED_BYTES_PER_FILE_BYTE, readYamlMapping } from '../../src/scanner/yaml-mapping.js';
import { runs } from '../helpers/property-runs.js';

// review Z10-1: the expanded size of a definition is bounded in bytes, not only in values: one anchored text reused by
// many aliases made a 90 MB entry out of a 0.9 MB file. Over generated anchor and alias shapes — texts of one- to
// four-byte characters, anchored scalars used alone, in lists and through an anchored mapping that holds aliases
// itself — a document whose texts and keys come to more than the bound once expanded is refused as YAML_RESOURCE_LIMIT
// at a line of the file, and nothing at or under it is refused; the same document written out without aliases (the
// fast reader's path) is held to the same bound.

const MAX_BYTES = 256;
const BOUND = EXPANDED_BYTES_PER_FILE_BYTE * MAX_BYTES;
const bytes = (text: string): number => Buffer.byteLength(text);

const text = fc.array(fc.constantFrom('a', 'b', ' ', 'é', '€', '😀'), { minLength: 1, maxLength: 300, size: 'max' }).map((characters) => characters.join(''));

type Use = { kind: 'one'; anchor: number } | { kind: 'list'; anchors: number[] } | { kind: 'map'; times: number };

const shape = fc.record({
  anchors: fc.array(text, { minLength: 1, maxLength: 5 }),
  // the anchored mapping's two members: aliases of anchors
  map: fc.tuple(fc.nat(), fc.nat()),
  uses: fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('one' as const), anchor: fc.nat() }),
      fc.record({ kind: fc.constant('list' as const), anchors: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }) }),
      fc.record({ kind: fc.constant('map' as const), times: fc.integer({ min: 1, max: 3 }) }),
    ),
    { maxLength: 12 },
  ),
});

function documents({ anchors, map, uses }: { anchors: string[]; map: [number, number]; uses: Use[] }): { aliased: string; written: string; expanded: number } {
  const at = (index: number): number => index % anchors.length;
  const quoted = (value: string): string => `"${value}"`;
  const aliased: string[] = [];
  const written: string[] = [];
  let expanded = 0;
  anchors.forEach((value, index) => {
    aliased.push(`anchor${index}: &a${index} ${quoted(value)}`);
    written.push(`anchor${index}: ${quoted(value)}`);
    expanded += bytes(`anchor${index}`) + bytes(value);
  });
  const [t, u] = [at(map[0]), at(map[1])];
  aliased.push(`shared: &m {t: *a${t}, u: *a${u}}`);
  const mapWritten = `{t: ${quoted(anchors[t]!)}, u: ${quoted(anchors[u]!)}}`;
  written.push(`shared: ${mapWritten}`);
  const mapBytes = bytes('t') + bytes('u') + bytes(anchors[t]!) + bytes(anchors[u]!);
  expanded += bytes('shared') + mapBytes;
  uses.forEach((use, index) => {
    const key = `use${index}`;
    expanded += bytes(key);
    if (use.kind === 'one') {
      aliased.push(`${key}: *a${at(use.anchor)}`);
      written.push(`${key}: ${quoted(anchors[at(use.anchor)]!)}`);
      expanded += bytes(anchors[at(use.anchor)]!);
    } else if (use.kind === 'list') {
      aliased.push(`${key}: [${use.anchors.map((anchor) => `*a${at(anchor)}`).join(', ')}]`);
      written.push(`${key}: [${use.anchors.map((anchor) => quoted(anchors[at(anchor)]!)).join(', ')}]`);
      for (const anchor of use.anchors) expanded += bytes(anchors[at(anchor)]!);
    } else {
      aliased.push(`${key}: [${Array(use.times).fill('*m').join(', ')}]`);
      written.push(`${key}: [${Array(use.times).fill(mapWritten).join(', ')}]`);
      expanded += use.times * mapBytes;
    }
  });
  return { aliased: `${aliased.join('\n')}\n`, written: `${written.join('\n')}\n`, expanded };
}

function read(yaml: string, fastYaml: boolean) {
  const file = { path: 'tools/demo/TOOL.hdlp', folder: 'demo', oid: 'oid', content: Buffer.from(yaml) };
  return readYamlMapping(file, yaml, 'TOOL.hdlp', 'the fields', { maxBytes: MAX_BYTES, fastYaml });
}

describe('the expanded size of a definition', () => {
  it('is refused past the bound, at a line of the file, and never at or under it, through aliases or written out', () => {
    let over = 0;
    let under = 0;
    let bytesRefused = 0;
    fc.assert(
      fc.property(shape, (generated) => {
        const { aliased, written, expanded } = documents(generated);
        for (const [yaml, fast] of [[aliased, true], [aliased, false], [written, true], [written, false]] as const) {
          const mapping = read(yaml, fast);
          const diagnostics = mapping.ok ? [] : mapping.diagnostics;
          // yaml's own bound on how often an anchor is used (an alias bomb) may stop an aliased document first
          const aliasBomb = yaml === aliased && diagnostics.length === 1 && /an alias bomb/.test(diagnostics[0]!.message);
          if (expanded > BOUND) {
            expect(diagnostics, `${expanded} bytes`).toEqual([expect.objectContaining({ code: 'YAML_RESOURCE_LIMIT' })]);
            if (!aliasBomb) {
              expect(diagnostics[0]!.message).toContain(`more than ${BOUND} bytes of text`);
              bytesRefused++;
            }
            expect(diagnostics[0]!.line).toBeLessThanOrEqual(yaml.split('\n').length);
          } else if (!aliasBomb) {
            expect(diagnostics, `${expanded} bytes`).toEqual([]);
          }
        }
        if (expanded > BOUND) over++;
        else under++;
      }),
      { numRuns: runs(150) },
    );
    // both sides of the bound were tried
    expect(over).toBeGreaterThan(0);
    expect(under).toBeGreaterThan(0);
    expect(bytesRefused).toBeGreaterThan(0);
  });
});
