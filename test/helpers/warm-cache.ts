import { join } from 'node:path';
import { vi } from 'vitest';
import { eachTool, type ToolIndex } from '../../src/core/index.js';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, initRepository } from './git.js';

/**
 * A local repository of `files` under `root`, scanned once cold and its cache written, then a new `Scanner` over that
 * cache: what a restarted server serves (its tools made from the scan cache when first read).
 */
export async function warmScanner(root: string, files: Record<string, string>): Promise<{ repo: string; cacheDir: string; scanner: Scanner; warm: ToolIndex }> {
  const repo = join(root, 'repo');
  await initRepository(repo);
  await commitFiles(repo, files);
  const cacheDir = join(root, 'cache');
  const cold = new Scanner({ repo, cacheDir });
  await cold.scan();
  await cold.flush();
  const scanner = new Scanner({ repo, cacheDir });
  return { repo, cacheDir, scanner, warm: await scanner.scan() };
}

/**
 * Counts the scan cache's entry lines parsed in this thread, each a definition made: `JSON.parse` of a line with an
 * oid. A spy on `JSON.parse`: undo it with `vi.restoreAllMocks()`.
 */
export function countingEntriesParsed(): { parsed: () => number } {
  const parse = JSON.parse;
  let parsed = 0;
  vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    if (typeof text === 'string' && text.startsWith('{') && text.includes('"oid":')) parsed += 1;
    return parse(text, reviver);
  });
  return { parsed: () => parsed };
}

/** What an index exposes, but the moment it was made: its fields in order, each tool read one at a time. */
export function comparableIndex(index: ToolIndex): object {
  const { scanned_at: _scannedAt, tools: _tools, ...rest } = Object.getOwnPropertyDescriptors(index);
  const fields = Object.fromEntries(Object.entries(rest).map(([key, descriptor]) => [key, descriptor.value as unknown]));
  return JSON.parse(JSON.stringify({ order: Object.keys(rest), fields, tools: [...eachTool(index)] }));
}

/** Counts how often `scanner`'s snapshots list every entry (a patch lists none), into `counted`. */
export function countingListings(scanner: Scanner, counted: { listings: number } = { listings: 0 }): { listings: number } {
  const source = scanner.source as { snapshot: Scanner['source']['snapshot'] };
  const snapshot = source.snapshot.bind(source);
  source.snapshot = async () => {
    const taken = await snapshot();
    const list = taken.listEntries.bind(taken);
    taken.listEntries = () => {
      counted.listings++;
      return list();
    };
    return taken;
  };
  return counted;
}

/**
 * A CommonJS module for `NODE_OPTIONS=--require`: counts, in the main thread of a real `hldp` process, the scan
 * cache's entry lines parsed (as `countingEntriesParsed` does in this one) and writes the count to
 * `HLDP_TEST_PARSED_FILE` at exit.
 */
export const ENTRIES_PARSED_COUNTER = `
const { isMainThread } = require('node:worker_threads');
if (isMainThread) {
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = function (text, reviver) {
    if (typeof text === 'string' && text.startsWith('{') && text.includes('"oid":')) parsed += 1;
    return parse(text, reviver);
  };
  process.on('exit', () => require('node:fs').writeFileSync(process.env.HLDP_TEST_PARSED_FILE, String(parsed)));
}
`;
