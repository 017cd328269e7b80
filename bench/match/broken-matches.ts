// The cost brokenMatches adds to a found:false or low answer (review userZ, Z8): an index with 2,000 broken tool
// files (the most it reads), 200 requests after a first one, CPU time per request. Run: npx tsx bench/match/broken-matches.ts
import type { ToolIndex } from '../../src/core/index.js';
import { brokenMatches } from '../../src/matcher/index.js';

const FILES = 2000;
const RUNS = 200;
const errors = Array.from({ length: FILES }, (_, at) => ({
  file: `tools/tool-${at}-helper-${at % 37}/TOOL.hdlp`, line: 1, column: 1, severity: 'error' as const, code: 'YAML_SYNTAX' as const, message: 'bad',
}));
const index = { source: 'bench', commit: 'c', tools: [], toolsets: [], skills: [], errors, warnings: [], scanned_at: '' } as unknown as ToolIndex;
const first = process.cpuUsage();
brokenMatches(index, 'warm up the words');
const firstUsed = process.cpuUsage(first);
const firstMs = (firstUsed.user + firstUsed.system) / 1000;
const start = process.cpuUsage();
for (let run = 0; run < RUNS; run++) brokenMatches(index, `send an email to the team number ${run}`);
const used = process.cpuUsage(start);
console.log(`brokenMatches, ${FILES} broken files: first request ${firstMs.toFixed(1)} ms CPU; then ${((used.user + used.system) / 1000 / RUNS).toFixed(3)} ms CPU per request (${RUNS} requests)`);
