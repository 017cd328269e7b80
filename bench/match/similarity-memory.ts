// What the re-rank by meaning (`src/matcher/similarity.ts`) adds to memory: the word vector table once read, and over
// N tools (BFCL's copied under new names) what answering BFCL's requests leaves behind (the term rows of the
// dictionary, the tool vectors kept), measured as V8's heap plus array buffers after a forced collection, and the
// CPU of those requests with and without the vectors.
// `node --expose-gc --import tsx bench/match/similarity-memory.ts [--size 100000]`
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createMatcher, FITTED_RANKING } from '../../src/matcher/index.js';
import { wordVectors } from '../../src/matcher/word-vector-file.js';
import { readBenchData } from './bench-data.js';
import { replicate } from './latency.js';
import { asIndex } from './systems.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';

const { values } = parseArgs({ options: { size: { type: 'string', default: '100000' } } });
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const used = (): number => {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};
const mb = (bytes: number): number => Math.round((bytes / 2 ** 20) * 100) / 100;
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const data = await readBenchData(DEFAULT_DATA);
const { world } = await prepareWorld(data);
const tools = replicate([...world.toolsById.values()], Number(values.size));
const words = createMatcher(asIndex(tools), { ranking: { ...FITTED_RANKING, similarity: 0 } }).prepare();
const near = words.reconfigure({ ranking: FITTED_RANKING });
const run = (matcher: typeof words): number => {
  const started = cpuMs();
  for (const query of data.queries) matcher.matchIntent(query.text);
  return Math.round(cpuMs() - started);
};
run(words);
const before = used();
const tableStarted = cpuMs();
wordVectors();
const tableMs = Math.round(cpuMs() - tableStarted);
const withTable = used();
const wordsMs = run(words);
const nearMs = run(near);
const after = used();
process.stdout.write(
  `${JSON.stringify({
    tools: tools.length,
    requests: data.queries.length,
    table_mb: mb(withTable - before),
    table_read_cpu_ms: tableMs,
    left_by_requests_mb: mb(after - withTable),
    requests_cpu_ms: { words_only: wordsMs, with_vectors: nearMs },
    load_average: loadavg().map((value) => Math.round(value * 100) / 100),
  })}\n`,
);
