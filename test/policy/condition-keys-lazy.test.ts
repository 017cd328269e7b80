// Review Z17, Z17-5: a `*` rule whose `when` key no tool declares reads every tool of the registry to say so, and the
// check kept each tool it read — of an index served from a warm scan cache (each tool made from its line when read,
// and let go after), every definition of the registry at once, the collector's work on them about half the walk's CPU
// (20,000 tools: 330-410 → 250-270 ms of PolicySet.of, bench/HISTORY.md 2026-12-07 fixz25). The tools read are let go as the walk goes.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachTool, withLazyTools, type ToolIndex } from '../../src/core/index.js';
import { PolicySet } from '../../src/policy/index.js';
import { makeTempDir, makeToolYaml } from '../helpers/git.js';
import { warmScanner } from '../helpers/warm-cache.js';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const TOOLS = 60;
const MIB = 1 << 20;
const POLICY = ['name: dry', 'author: TEST-001', 'why: no dry runs on secrets', 'approval:', "  - tools: ['*']", '    when: { dry_run: { glob: "secret/**" } }', '    decision: deny', '    reason: no'].join('\n');

describe('a * rule whose when key no tool of a warm-cache index declares', () => {
  let temp: { path: string; cleanup: () => Promise<void> };
  let warm: ToolIndex;
  beforeAll(async () => {
    temp = await makeTempDir('hldp-keys-lazy-');
    const files: Record<string, string> = { 'policies/dry.hdlp': POLICY };
    for (let at = 0; at < TOOLS; at++) files[`tools/t${String(at).padStart(3, '0')}/TOOL.hdlp`] = makeToolYaml(`t${String(at).padStart(3, '0')}`, { intent: `handles job ${at}`, params_schema: '\n  type: object\n  properties:\n    path: {type: string}' });
    ({ warm } = await warmScanner(temp.path, files));
  }, 60_000);
  afterAll(async () => temp?.cleanup());

  it('says so as before, and keeps none of the tools it read while it reads the rest', () => {
    // the registry's tools as the cache serves them, each made afresh when read and 1 MiB large (a long definition):
    // what of them is still held once the last is asked for is what the heap holds beyond the first's
    const tools = [...eachTool(warm)];
    let made = 0;
    let before = 0;
    let held = -1;
    const { source, commit, toolsets, skills, policies, errors, warnings, scanned_at } = warm;
    const served = withLazyTools({ source, commit, toolsets, skills, ...(policies ? { policies } : {}), errors, warnings, scanned_at }, tools.map((tool) => tool.name), (position) => {
      if (position === 0 || position === TOOLS - 1) {
        collect();
        if (position === 0) before = process.memoryUsage().heapUsed;
        else held = (process.memoryUsage().heapUsed - before) / MIB;
      }
      made += 1;
      return { ...structuredClone(tools[position]!), payload: new Array(MIB / 8).fill(position) };
    });
    const conditions = PolicySet.of(served).conditions;
    expect(conditions.map((diagnostic) => [diagnostic.severity, diagnostic.message])).toEqual([['warning', expect.stringContaining(`conditions on 'dry_run', which none of the ${TOOLS} tools it covers takes`)]]);
    // the same words as of the index built whole, whose tools are all held anyway
    expect(conditions).toEqual(PolicySet.of(warm).conditions);
    // every tool was read (no key was found) ...
    expect(made).toBe(TOOLS);
    // ... and of the 59 MiB read before the last, the walk held next to none (each tool was held to its end: 59 MiB)
    expect(held).toBeLessThan(20);
  });
});
