// What parsing and validating generated TOOL.hdlp files costs, this version beside another build (`--before DIR`:
// `git archive <commit> src schemas package.json tsconfig.build.json | tar -x -C DIR`, node_modules linked, `npx tsc
// -p tsconfig.build.json` there), alternated in one process: per definition on this thread (CPU and wall, after a
// warm-up that compiles the schemas), and N files through the scanner's parser as a scan sizes it (worker threads
// from 2,000 files on; the process's CPU, all threads, and the wall clock).
// Usage: npx tsx bench/scan/parse-cost.ts [--files 4000] [--rounds 3] [--before DIR]
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { toolName } from './generate-repository.js';
import { toolYaml } from './tool-yaml.js';

const { values } = parseArgs({ options: { files: { type: 'string', default: '4000' }, rounds: { type: 'string', default: '3' }, before: { type: 'string' } } });
const count = Number(values.files);

interface DefinitionFile {
  path: string;
  folder: string;
  oid: string;
  content: Uint8Array;
}
interface Version {
  parseEntry: (file: DefinitionFile) => { tool?: unknown };
  createParser: (files: number) => { threads: number; parse: (file: DefinitionFile) => Promise<{ tool?: unknown }>; close: () => Promise<void> };
}

async function load(root: string): Promise<Version> {
  const dist = (path: string) => import(pathToFileURL(join(resolve(root), 'dist/scanner', path)).href);
  const [{ parseEntry }, { createParser }] = await Promise.all([dist('build-index.js'), dist('parse-pool.js')]);
  return { parseEntry, createParser } as Version;
}

const versions: Array<[string, Version]> = [['this', await load(new URL('../..', import.meta.url).pathname)]];
if (values.before) versions.unshift(['before', await load(values.before)]);

const files: DefinitionFile[] = Array.from({ length: count }, (_, index) => {
  const name = toolName(index);
  return { path: `tools/${name}/TOOL.hdlp`, folder: name, oid: `oid-${index}`, content: Buffer.from(toolYaml(name)) };
});

const cpu = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

const results = new Map(versions.map(([name]) => [name, { inThreadCpu: [] as number[], inThreadWall: [] as number[], poolCpu: [] as number[], poolWall: [] as number[], threads: 0 }]));
for (const [, version] of versions) version.parseEntry(files[0]!);
const loadBefore = loadavg();
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, version] of round % 2 === 0 ? versions : [...versions].reverse()) {
    const result = results.get(name)!;
    let start = performance.now();
    let startCpu = cpu();
    for (const file of files) if (!version.parseEntry(file).tool) throw new Error(`${name}: ${file.path} did not parse`);
    result.inThreadWall.push((performance.now() - start) / count);
    result.inThreadCpu.push((cpu() - startCpu) / count);
    start = performance.now();
    startCpu = cpu();
    const parser = version.createParser(count);
    result.threads = parser.threads;
    const entries = await Promise.all(files.map((file) => parser.parse(file)));
    await parser.close();
    if (entries.some((entry) => !entry.tool)) throw new Error(`${name}: a pooled parse failed`);
    result.poolWall.push(performance.now() - start);
    result.poolCpu.push(cpu() - startCpu);
  }
}
const round3 = (value: number): number => Math.round(value * 1000) / 1000;
process.stdout.write(
  `${JSON.stringify(
    {
      benchmark: 'parse and validate generated TOOL.hdlp files',
      files: count,
      rounds: Number(values.rounds),
      load_average: { before: loadBefore, after: loadavg() },
      ...Object.fromEntries(
        [...results].map(([name, result]) => [
          name,
          {
            in_thread_cpu_ms_per_definition: round3(median(result.inThreadCpu)),
            in_thread_wall_ms_per_definition: round3(median(result.inThreadWall)),
            [`parser_of_${count}_files_threads`]: result.threads,
            [`parser_of_${count}_files_cpu_ms`]: Math.round(median(result.poolCpu)),
            [`parser_of_${count}_files_wall_ms`]: Math.round(median(result.poolWall)),
          },
        ]),
      ),
    },
    null,
    2,
  )}\n`,
);
