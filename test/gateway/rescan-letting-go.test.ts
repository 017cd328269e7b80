import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runLettingGo, type ToolIndex } from '../../src/core/index.js';
import { exportTools } from '../../src/export/index.js';
// the file, not the folder's index: the index loads no MCP SDK, so it leaves the SDK's server out
import { createMcpServer } from '../../src/mcp-front/create-mcp-server.js';
import { catalogFor } from '../../src/sessions/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { openTestGateway } from '../helpers/gateway.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';

// A server's rescan does its work a slice at a time (scan, matcher update and calibration, the next MCP
// catalog), letting requests in between: what it swaps in must be exactly what building afresh gives.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const TOOLS = 60;
const tool = (index: number, variant = 0) =>
  makeToolYaml(`tool-${index}`, { intent: `${['reads', 'writes', 'sends', 'lists'][index % 4]} the ${['files', 'mail', 'tickets'][index % 3]} of project ${index} (variant ${variant})`, aliases: `[project-${index}-tool]`, examples: `["${['read', 'write', 'send'][index % 3]} the things of project ${index}"]` });

async function repositoryOf(count: number): Promise<string> {
  const temp = await makeTempDir();
  cleanups.push(temp.cleanup);
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, Object.fromEntries(Array.from({ length: count }, (_, index) => [`tools/tool-${index}/TOOL.hdlp`, tool(index)])));
  return repo;
}

// what every answer shows, and the tools' own order
function answers(index: ToolIndex, matcher = createMatcher(index)) {
  return ['read the files of project 7', 'send mail', 'project-12-tool', 'write tickets of project 40 please', 'tell me a joke'].map((intent) => ({ explained: matcher.explainIntent(intent), result: matcher.matchIntent(intent), lookup: matcher.lookup(intent, {}) }));
}

describe('Gateway.rescan on a server (matcher and MCP catalog prepared before the swap)', () => {
  it('swaps in a matcher and a catalog equal to ones built afresh, after tools change, arrive and leave', async () => {
    const repo = await repositoryOf(TOOLS);
    const opened = await openTestGateway(repo);
    cleanups.push(opened.cleanup);
    const { gateway } = opened;
    await gateway.warmUp();
    await gateway.prepareMatching();
    // an MCP client connected: its first tools/list built the catalog
    const mcp = createMcpServer(gateway, { principal: 'local' });
    cleanups.push(() => mcp.close());
    catalogFor(gateway.registry.index);
    const changes: Array<Record<string, string | null>> = [
      { 'tools/tool-7/TOOL.hdlp': tool(7, 1) },
      { 'tools/tool-70/TOOL.hdlp': tool(70), 'tools/tool-12/TOOL.hdlp': null },
      { 'tools/tool-40/TOOL.hdlp': tool(40, 2), 'tools/tool-41/TOOL.hdlp': null, 'tools/tool-12/TOOL.hdlp': tool(12, 3) },
    ];
    for (const files of changes) {
      const commit = await commitFiles(repo, files);
      expect(await gateway.rescan()).toMatchObject({ changed: true, commit });
      const { index, matcher } = gateway.registry;
      expect(index.errors).toEqual([]);
      expect(answers(index, matcher)).toEqual(answers(index));
      const catalog = catalogFor(index);
      expect(catalog.commit).toBe(commit);
      expect(catalog.tools).toEqual(exportTools(index, 'mcp').tools);
      // the same list as a catalog built from new definition objects
      const copy: ToolIndex = { ...index, tools: index.tools.map((definition) => structuredClone(definition)) };
      expect(catalog.tools).toEqual(catalogFor(copy).tools);
      for (const definition of index.tools) expect(catalog.resolve(catalog.listedName(definition.name))).toEqual({ kind: 'tool', name: definition.name });
    }
    expect(catalogFor(gateway.registry.index).tools.map((spec) => spec.name)).toContain('tool-70');
    expect(catalogFor(gateway.registry.index).tools.map((spec) => spec.name)).not.toContain('tool-41');
  });

  it('runs rescans asked for together one after another, each to its end', async () => {
    const repo = await repositoryOf(5);
    const opened = await openTestGateway(repo);
    cleanups.push(opened.cleanup);
    const { gateway } = opened;
    await gateway.warmUp();
    await gateway.prepareMatching();
    const first = await commitFiles(repo, { 'tools/tool-1/TOOL.hdlp': tool(1, 1) });
    const [one, two] = await Promise.all([gateway.rescan(), gateway.rescan()]);
    expect(one).toMatchObject({ changed: true, commit: first });
    // the second began once the first had swapped: nothing new for it
    expect(two).toMatchObject({ changed: false, previous: first, commit: first });
    const last = await commitFiles(repo, { 'tools/tool-2/TOOL.hdlp': tool(2, 1) });
    expect(await gateway.rescan()).toMatchObject({ changed: true, previous: first, commit: last });
    expect(gateway.registry.index.commit).toBe(last);
    expect(gateway.registry.matcher.matchIntent('writes the mail of project 2 (variant 1)')).toMatchObject({ found: true });
  });
});

describe('runLettingGo', () => {
  it('runs the steps to their value, letting timers run between slices', async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    // steps until the timer has run (or a bound no event loop turn takes), each adding to the value
    function* steps(): Generator<void, number, void> {
      let count = 0;
      while (ticks === 0 && count < 1_000_000) {
        count++;
        yield;
      }
      return count;
    }
    // a slice of 0 ms lets go at every step
    const count = await runLettingGo(steps(), 0);
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(0);
    expect(count).toBeLessThan(1_000_000);
  });
});
