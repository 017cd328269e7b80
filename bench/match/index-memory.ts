// Where the search index's memory and load time go (issue #18): over N tools (BFCL's replicated under new names, or
// `bench/scan`'s generated template), the search index is built, then taken apart piece by piece with a forced
// collection after each, so the memory each piece held (V8's heap and array buffers) is the difference: the first stage (minisearch before,
// its own typed-array postings after), the per-tool records of the re-rank, the term counts. Then the index is written to a file as a
// server keeps it and read back (a warm start): the file's size by part, and the CPU and heap the read costs.
// `--root DIR` measures another checkout's sources (`git archive <commit> src package.json | tar -x -C DIR`, node_modules
// linked), to put the code before a change beside it. Run with `--expose-gc`:
// Usage: node --expose-gc --import tsx bench/match/index-memory.ts [--source bfcl|generated] [--size 100000] [--root DIR]
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { serialize } from 'node:v8';
import type { ToolDefinition, ToolIndex } from '../../src/core/index.js';
import { toolName } from '../scan/generate-repository.js';
import { toolYaml } from '../scan/tool-yaml.js';

const { values } = parseArgs({ options: { source: { type: 'string', default: 'bfcl' }, size: { type: 'string', default: '3148' }, root: { type: 'string' } } });
const root = values.root ? resolve(values.root) : fileURLToPath(new URL('../..', import.meta.url));
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(root, path)).href)) as T;
const searchIndex = await load<typeof import('../../src/matcher/search-index.js')>('src/matcher/search-index.ts');
// a checkout from before the split of search-index.ts keeps storeSearchIndex there
const storedIndex = await load<typeof import('../../src/matcher/stored-search-index.js')>('src/matcher/stored-search-index.ts').catch(
  () => searchIndex as unknown as typeof import('../../src/matcher/stored-search-index.js'),
);
const indexFile = await load<typeof import('../../src/matcher/search-index-file.js')>('src/matcher/search-index-file.ts');
const { parseToolDefinition } = await load<typeof import('../../src/scanner/index.js')>('src/scanner/index.ts');

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
// the V8 heap and the typed arrays' memory beside it (records hold theirs there)
const heapMb = (): number => {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 2 ** 20;
};
const cpuS = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1e6;
};
const round = (value: number, digits = 1): number => Number(value.toFixed(digits));
const size = Number(values.size);

async function bfclTools(): Promise<ToolDefinition[]> {
  const { readBenchData } = await import('./bench-data.js');
  const { replicate } = await import('./latency.js');
  const { DEFAULT_DATA, prepareWorld } = await import('./world.js');
  const { world } = await prepareWorld(await readBenchData(DEFAULT_DATA));
  const base = [...world.toolsById.values()];
  return size > base.length ? replicate(base, size) : base.slice(0, size);
}

// one definition parsed, the others made from it by renaming: what the scan gives for each file, in a fraction of the time
function generatedTools(): ToolDefinition[] {
  const template = toolName(0);
  const parsed = parseToolDefinition({ path: `tools/${template}/TOOL.hdlp`, folder: template, oid: '0', content: Buffer.from(toolYaml(template)) });
  if (parsed.tool === null) throw new Error(JSON.stringify(parsed.diagnostics));
  const text = JSON.stringify(parsed.tool);
  return Array.from({ length: size }, (_, index) => JSON.parse(text.replaceAll(template, toolName(index))) as ToolDefinition);
}

const tools = values.source === 'generated' ? generatedTools() : await bfclTools();
tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
const index: ToolIndex = { source: `bench-${values.source}-${size}`, commit: 'bench', tools, toolsets: [], skills: [], errors: [], warnings: [], scanned_at: '' };
const loadBefore = loadavg().map((value) => round(value, 2));

const heapTools = heapMb();
let cpu = cpuS();
let built: ReturnType<typeof searchIndex.buildSearchIndex> | undefined = searchIndex.buildSearchIndex(tools);
const buildCpu = cpuS() - cpu;
const heapBuilt = heapMb();
const rssBuilt = process.memoryUsage().rss / 2 ** 20;

// the index file, as a server keeps it
const dir = mkdtempSync(join(tmpdir(), 'hldp-index-memory-'));
const files = indexFile.searchIndexFiles(dir);
cpu = cpuS();
files.write(index, built);
const writeCpu = cpuS() - cpu;
const file = readdirSync(dir).find((name) => name.endsWith('.v8'))!;
const fileMb = statSync(join(dir, file)).size / 2 ** 20;
const partsMb = ((stored: Record<string, unknown>) => Object.fromEntries(Object.entries(stored).map(([part, value]) => [part, round(serialize(value).length / 2 ** 20)])))(
  storedIndex.storeSearchIndex(built) as unknown as Record<string, unknown>,
);

// taken apart: what each piece held
const parts: Record<string, number> = {};
const take = (name: string, drop: () => void): void => {
  const before = heapMb();
  drop();
  parts[name] = round(before - heapMb());
};
const held = built as unknown as Record<string, unknown> & { engine: Record<string, unknown> };
// minisearch before the first stage's own postings replaced it (a `--root` checkout of the code before), the postings after
take('first stage', () => {
  for (const key of ['minisearch', 'slotPositions', 'averageFieldLengths']) held[key] = undefined;
  held.engine['minisearch'] = undefined;
  held.engine['postings'] = undefined;
});
take('records', () => {
  held['records'] = undefined;
  held['positions'] = undefined;
  held['intentRarity'] = undefined;
  held['rarity'] = undefined;
});
take('term counts', () => {
  held['documentFrequency'] = undefined;
  held.engine['documentFrequency'] = undefined;
});
const stillHeld = Object.keys(held).filter((key) => held[key] !== undefined && !['tools', 'engine', 'version'].includes(key));
take('the rest', () => {
  built = undefined;
});

// a warm start: the file read back
const heapBeforeRead = heapMb();
cpu = cpuS();
const wall = performance.now();
const restored = files.read(index);
const readCpu = cpuS() - cpu;
const readWall = performance.now() - wall;
if (restored === undefined) throw new Error('the index file was not read back');
const heapRead = heapMb() - heapBeforeRead;
rmSync(dir, { recursive: true, force: true });

process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'search index memory and load',
      root,
      source: values.source,
      tools: tools.length,
      load_average: { before: loadBefore, after: loadavg().map((value) => round(value, 2)) },
      memory_mb: {
        tools: round(heapTools),
        search_index: round(heapBuilt - heapTools),
        by_part: parts,
        // the analysis's word memos, which live on after a build
        other: round(heapBuilt - heapTools - Object.values(parts).reduce((sum, value) => sum + value, 0)),
        unaccounted_keys: stillHeld,
      },
      rss_mb_after_build: round(rssBuilt),
      build_cpu_s: round(buildCpu, 2),
      file: { mb: round(fileMb), write_cpu_s: round(writeCpu, 2), by_part_mb: partsMb },
      read: { cpu_s: round(readCpu, 2), wall_s: round(readWall / 1000, 2), memory_mb: round(heapRead), rss_mb_after: round(process.memoryUsage().rss / 2 ** 20) },
    },
    null,
    2,
  )}\n`,
);
