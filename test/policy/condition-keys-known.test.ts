// Review Z17, Z17-5: a `*` rule whose `when` key no tool declares made every tool of an index served from the warm scan
// cache from its line to say so (at 20,000 tools ~100 ms of JSON.parse alone, at every PolicySet built). The cache now
// keeps each tool's declared params with its index; the check looks each key up in their union, making no tool. A
// rescan that changes a schema in place, or adds a tool, keeps them true, in memory and in the file the next start
// reads (a stale list would misjudge a key: an error or a warning where there is none).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eachTool, withLazyTools, type ToolIndex } from '../../src/core/index.js';
import { PolicySet } from '../../src/policy/index.js';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { countingEntriesParsed, warmScanner } from '../helpers/warm-cache.js';

const TOOLS = 12;
const schema = (...params: string[]) => `\n  type: object\n  properties:\n${params.map((param) => `    ${param}: {type: string}`).join('\n')}`;
const tool = (name: string, ...params: string[]) => makeToolYaml(name, { intent: `handles ${name}`, params_schema: schema(...params) });
const rule = (key: string) => ["  - tools: ['*']", `    when: { ${key}: { glob: "secret/**" } }`, '    decision: deny', '    reason: no'];
const POLICY = ['name: keys', 'author: TEST-001', 'why: no secrets', 'approval:', ...rule('dry_run'), ...rule('mode')].join('\n');

// the index's conditions, and how many tools were made from the cache to say them
function conditionsOf(index: ToolIndex): { said: Array<[string, string]>; made: number } {
  const counter = countingEntriesParsed();
  try {
    const said = PolicySet.of(index).conditions.map((diagnostic): [string, string] => [diagnostic.severity, diagnostic.message]);
    return { said, made: counter.parsed() };
  } finally {
    vi.restoreAllMocks();
  }
}

// what the walk of every tool says of the same index (an index that keeps no params: each tool read)
function walked(index: ToolIndex): Array<[string, string]> {
  const tools = [...eachTool(index)];
  const { source, commit, toolsets, skills, policies, errors, warnings, scanned_at } = index;
  const bare = withLazyTools({ source, commit, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, scanned_at }, tools.map((one) => one.name), (position) => tools[position]!);
  return PolicySet.of(bare).conditions.map((diagnostic) => [diagnostic.severity, diagnostic.message]);
}

describe("a * rule's when keys over an index served from the warm scan cache (review Z17, Z17-5)", () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  let repo: string;
  let cacheDir: string;
  let scanner: Scanner;
  let warm: ToolIndex;
  beforeAll(async () => {
    temp = await makeTempDir('hldp-keys-known-');
    const files: Record<string, string> = { 'policies/keys.hdlp': POLICY };
    for (let at = 0; at < TOOLS; at++) {
      const name = `t${String(at).padStart(2, '0')}`;
      files[`tools/${name}/TOOL.hdlp`] = at === 3 ? tool(name, 'path', 'content') : tool(name, 'path');
    }
    ({ repo, cacheDir, scanner, warm } = await warmScanner(temp.path, files));
  }, 60_000);
  afterAll(async () => temp?.cleanup());

  // a fresh start over the cache the scanner wrote
  const restarted = async (): Promise<ToolIndex> => {
    await scanner.flush();
    return new Scanner({ repo, cacheDir }).scan();
  };

  it('says of each key what the walk of every tool says, and makes no tool to say it', () => {
    const { said, made } = conditionsOf(warm);
    expect(said).toEqual([
      ['warning', expect.stringContaining(`conditions on 'dry_run', which none of the ${TOOLS} tools it covers takes (their params: path, content)`)],
      ['warning', expect.stringContaining(`conditions on 'mode', which none of the ${TOOLS} tools it covers takes (their params: path, content)`)],
    ]);
    expect(made).toBe(0);
    expect(said).toEqual(walked(warm));
  });

  it('after a rescan that changes a schema in place, reads the new one, and so does the next start', { timeout: 60_000 }, async () => {
    await commitFiles(repo, { 'tools/t05/TOOL.hdlp': tool('t05', 'path', 'dry_run') });
    const patched = await scanner.scan();
    const { said, made } = conditionsOf(patched);
    expect(said).toEqual([['warning', expect.stringContaining(`conditions on 'mode', which none of the ${TOOLS} tools it covers takes (their params: path, content, dry_run)`)]]);
    expect(made).toBe(0);
    expect(said).toEqual(walked(patched));
    // the cache file of the new commit keeps the new params, not the ones the patch started from
    const again = await restarted();
    expect(again.commit).toBe(patched.commit);
    expect(conditionsOf(again)).toEqual({ said, made: 0 });
  });

  it('after a rescan that adds a tool, reads its params beside the others kept, and so does the next start', { timeout: 60_000 }, async () => {
    await commitFiles(repo, { 'tools/t99/TOOL.hdlp': tool('t99', 'mode') });
    const added = await scanner.scan();
    const { said, made } = conditionsOf(added);
    // t05's dry_run kept from the stored index, t99's mode read now: no key is left over
    expect(said).toEqual([]);
    expect(made).toBe(0);
    expect(walked(added)).toEqual([]);
    expect(conditionsOf(await restarted())).toEqual({ said: [], made: 0 });
  });
});
