// Whether a change to the matcher's structures left its answers exactly as they were (issue #18): every BFCL request
// (or `--limit` of them) is asked of this checkout's matcher and of another's (`--before DIR`: `git archive <commit> src
// package.json | tar -x -C DIR`, node_modules linked) over the same tools, BFCL's replicated to `--size`, and the full
// explanation compared: found, confidence, evidence, the decision's features, and every ranked tool with its score,
// probability, features and matched fields; and the answer `matchIntent` gives, suggestion and near misses included.
// Prints the count of differing answers and the first few. With `--kept`, this checkout's matcher is a restart's: the
// search index (and what was measured beside it) kept in a file by a first matcher, and read back by a second. Usage:
// npx tsx bench/match/same-answers.ts --before DIR [--size 3148] [--limit 0] [--kept]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createMatcher, searchIndexFiles } from '../../src/matcher/index.js';
import { readBenchData } from './bench-data.js';
import { replicate } from './latency.js';
import { asIndex } from './systems.js';
import { DEFAULT_DATA, prepareWorld } from './world.js';
import { usage } from '../usage.js';

const { values } = parseArgs({ options: { before: { type: 'string' }, size: { type: 'string', default: '3148' }, limit: { type: 'string', default: '0' }, kept: { type: 'boolean', default: false } } });
if (!values.before) usage('npx tsx bench/match/same-answers.ts --before DIR [--size N] [--limit N]');
const before = (await import(pathToFileURL(join(resolve(values.before), 'src/matcher/index.ts')).href)) as typeof import('../../src/matcher/index.js');
// each checkout has its own Chinese-English dictionary: this one's is read by `systems.ts`, the other's here (unread,
// its Chinese requests would be answered without senses, and differ for that alone)
await before.loadLexicon();
const data = await readBenchData(DEFAULT_DATA);
const { world } = await prepareWorld(data);
const base = [...world.toolsById.values()];
const size = Number(values.size);
const tools = size > base.length ? replicate(base, size) : base.slice(0, size);
const queries = Number(values.limit) > 0 ? data.queries.slice(0, Number(values.limit)) : data.queries;
const keptIn = values.kept ? mkdtempSync(join(tmpdir(), 'hldp-same-answers-')) : undefined;
const after = (): ReturnType<typeof createMatcher> => {
  if (keptIn === undefined) return createMatcher(asIndex(tools)).prepare();
  const files = searchIndexFiles(keptIn);
  createMatcher(asIndex(tools), { searchFiles: files }).prepare();
  const restored = createMatcher(asIndex(tools), { searchFiles: files });
  if (files.read(restored.index) === undefined) throw new Error('no search index was kept');
  return restored.prepare();
};
const matchers = { before: before.createMatcher(asIndex(tools)).prepare(), after: after() };
if (keptIn !== undefined) rmSync(keptIn, { recursive: true, force: true });
const shown = (matcher: typeof matchers.after, text: string): string => {
  const { found, confidence, evidence, decision, ranked } = matcher.explainIntent(text);
  const explained = { found, confidence, evidence, decision, ranked: ranked.map(({ tool, score, probability, matched, features }) => ({ name: tool.name, score, probability, matched, features })) };
  // and the answer itself, as an agent gets it (a found: false answer's suggestion and near misses)
  return JSON.stringify({ explained, answer: matcher.matchIntent(text) });
};
const differing: Array<{ request: string; before: string; after: string }> = [];
for (const query of queries) {
  const [a, b] = [shown(matchers.before, query.text), shown(matchers.after, query.text)];
  if (a !== b) differing.push({ request: query.text, before: a, after: b });
}
process.stdout.write(`${JSON.stringify({ benchmark: 'same answers', tools: tools.length, kept: values.kept, requests: queries.length, differing: differing.length, first: differing.slice(0, 3) }, null, 2)}\n`);
