import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseEntry } from '../../src/scanner/build-index.js';
import { summarise } from '../../src/scanner/entry-summary.js';
import { createParser, createSummaryParser, LARGE_DEFINITION_BYTES, MAX_IN_FLIGHT, POOL_THRESHOLD } from '../../src/scanner/parse-pool.js';
import { scanOnce } from '../../src/scanner/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

// a folder of the size the pool once started at (it now starts at POOL_THRESHOLD)
const LARGE = 2000;

const fileOf = (name: string, text: string) => ({ path: `tools/${name}/TOOL.hdlp`, folder: name, oid: `oid-${name}`, content: Buffer.from(text) });

describe('createParser', () => {
  describe('when there are many files', () => {
    it('parses them in worker threads, to exactly what parsing in this thread gives', async () => {
      const parser = createParser(POOL_THRESHOLD);
      expect(parser.threads).toBeGreaterThan(0);
      const files = Array.from({ length: 300 }, (_, i) => fileOf(`t${i}`, i % 50 === 7 ? makeToolYaml(`t${i}`, { executor: 'nope' }) : makeToolYaml(`t${i}`)));
      const pooled = await Promise.all(files.map((file) => parser.parse(file)));
      await parser.close();
      expect(pooled).toEqual(files.map((file) => parseEntry(file)));
      expect(pooled.filter((entry) => 'tool' in entry && entry.tool === null)).toHaveLength(6);
    });
  });

  describe('when a cold scan asks for summaries', () => {
    it('parses a few files in this thread, each entry\'s summary and line as summarise makes them', async () => {
      const parser = createSummaryParser(POOL_THRESHOLD - 1);
      expect(parser.threads).toBe(0);
      const files = Array.from({ length: 30 }, (_, i) => fileOf(`t${i}`, makeToolYaml(`t${i}`)));
      const made = await Promise.all(files.map((file) => parser.parse(file)));
      await parser.close();
      expect(made.map(({ summary }) => summary)).toEqual(files.map((file) => summarise(parseEntry(file)).summary));
    });

    it('parses many in one thread beside this one, each entry\'s summary and line exactly as summarise makes them here', async () => {
      const parser = createSummaryParser(POOL_THRESHOLD * 10);
      expect(parser.threads).toBe(1);
      const files = Array.from({ length: 300 }, (_, i) => fileOf(`t${i}`, i % 50 === 7 ? makeToolYaml(`t${i}`, { executor: 'nope' }) : makeToolYaml(`t${i}`, { display: '"工具 — ёлка"' })));
      const made = await Promise.all(files.map((file) => parser.parse(file)));
      await parser.close();
      const here = files.map((file) => summarise(parseEntry(file)));
      expect(made.map(({ summary }) => summary)).toEqual(here.map(({ summary }) => summary));
      expect(made.map(({ line }) => Buffer.from(line).toString('latin1'))).toEqual(here.map(({ line }) => Buffer.from(line).toString('latin1')));
      expect(made.filter(({ summary }) => 'tool' in summary && summary.tool === null)).toHaveLength(6);
      expect(made[0]!.summary).not.toHaveProperty('tool.intent');
      // made again here, a summary shares what one made in this thread shares: its position, its empty lists
      expect(made[1]!.summary.name_position).toBe(here[1]!.summary.name_position);
      expect(made[1]!.summary.diagnostics).toBe(here[1]!.summary.diagnostics);
    });
  });

  // review Z10-1: a thread that ran out of heap took the process with it (V8's fatal out-of-memory, exit 134): the way a
  // hostile file kills a thread, unlike terminate(). Past its heap limit the thread is ended alone now (Node's
  // ERR_WORKER_OUT_OF_MEMORY): the files it held fail (the scan parses them again here) and a new thread takes the next
  describe('when the thread runs out of its heap', () => {
    it('fails only the files it held, and a new thread parses the next ones', async () => {
      const parser = createSummaryParser(POOL_THRESHOLD * 10, {}, { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 });
      // under the expanded-text bound (4 x 0.9 MB): its YAML document, entry and ~11 M-character line pass the thread's 32 MB
      const big = 'é'.repeat(450_000);
      const heavy = makeToolYaml('heavy', { params_schema: `\n  a: { type: string, description: &big "${big}" }\n  b: { type: string, description: *big }\n  c: { type: string, description: *big }\n  d: { type: string, description: *big }` });
      const lost = parser.parse(fileOf('heavy', heavy));
      await expect(lost).rejects.toThrow(/memory limit|out of memory/i);
      const next = await parser.parse(fileOf('light', makeToolYaml('light')));
      await parser.close();
      expect(next.summary).toEqual(summarise(parseEntry(fileOf('light', makeToolYaml('light')))).summary);
    }, 120_000);
  });

  describe('when files come faster than the threads parse them', () => {
    it('has readers wait once MAX_IN_FLIGHT files are queued, and lets them go on once the threads caught up', async () => {
      const parser = createParser(POOL_THRESHOLD);
      // what has settled by the next turn of the event loop
      const settled = (promise: Promise<unknown>) => Promise.race([promise.then(() => 'ready'), new Promise((resolve) => setImmediate(() => resolve('waiting')))]);
      expect(await settled(parser.ready())).toBe('ready');
      const files = Array.from({ length: MAX_IN_FLIGHT }, (_, i) => fileOf(`t${i}`, makeToolYaml(`t${i}`)));
      let parsed = 0;
      const entries = files.map((file) => parser.parse(file).then((entry) => (parsed++, entry)));
      const ready = parser.ready().then(() => parsed);
      expect(await settled(ready)).toBe('waiting');
      // it resolves once at least half of them are back, before the rest
      expect(await ready).toBeGreaterThanOrEqual(MAX_IN_FLIGHT / 2);
      expect(await Promise.all(entries)).toEqual(files.map((file) => parseEntry(file)));
      await parser.close();
    });
  });

  describe('when there are few files', () => {
    it('parses in this thread', async () => {
      const parser = createParser(3);
      expect(parser.threads).toBe(0);
      expect(await parser.parse(fileOf('a', makeToolYaml('a')))).toEqual(parseEntry(fileOf('a', makeToolYaml('a'))));
    });

    // review Z14, Z14-3: one large definition held hldp serve's loop as long as it took to parse (90,000 keys: 1.3 s)
    it('parses one of LARGE_DEFINITION_BYTES or more in a thread, to exactly what parsing here gives, and the others here', async () => {
      const parser = createParser(3);
      const large = fileOf('large', `${makeToolYaml('large')}${Array.from({ length: 2_000 }, (_, i) => `u${i}: 1`).join('\n')}\n`);
      expect(large.content.length).toBeGreaterThanOrEqual(LARGE_DEFINITION_BYTES);
      const small = fileOf('small', makeToolYaml('small'));
      expect(await parser.parse(small)).toEqual(parseEntry(small));
      expect(parser.threads).toBe(0);
      const entry = await parser.parse(large);
      expect(parser.threads).toBe(1);
      await parser.close();
      expect(entry).toEqual(parseEntry(large));
      expect(entry.diagnostics).toHaveLength(20);
    });

    it('and so does a cold scan of few files, each entry\'s summary and line as summarise makes them', async () => {
      const parser = createSummaryParser(3);
      const large = fileOf('large', makeToolYaml('large', { intent: `"${'a long intent '.repeat(600)}"` }));
      expect(large.content.length).toBeGreaterThanOrEqual(LARGE_DEFINITION_BYTES);
      const made = await parser.parse(large);
      expect(parser.threads).toBe(1);
      await parser.close();
      const here = summarise(parseEntry(large));
      expect(made.summary).toEqual(here.summary);
      expect(Buffer.from(made.line).toString('latin1')).toBe(Buffer.from(here.line).toString('latin1'));
    });
  });
});

describe('Scanner on a large folder', () => {
  it('loads every tool and reports the broken ones with their lines', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < LARGE + 100; i++) files[`tools/tool-${i}/TOOL.hdlp`] = makeToolYaml(`tool-${i}`);
    files['tools/tool-3/TOOL.hdlp'] = makeToolYaml('tool-3', { created: 'someday' });
    await writeFiles(join(temp.path, 'repo'), files);
    const index = await scanOnce(join(temp.path, 'repo'), { cacheDir: join(temp.path, 'cache') });
    expect(index.tools).toHaveLength(LARGE + 99);
    expect(index.errors).toEqual([expect.objectContaining({ file: 'tools/tool-3/TOOL.hdlp', line: 8, column: 10 })]);
  });
});
