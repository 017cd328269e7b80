import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/gateway/http/index.js';
import { warnOfWholeListing } from '../../src/gateway/service/index.js';
import { mountMcp } from '../../src/mcp-front/index.js';
import { makeTestConfig, openTestGateway } from '../helpers/gateway.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { connectStdio } from './support.js';

// Review userZ, Z6: tools/list of a session with no toolset active listed every tool (407 tools, 164 KB) and nothing
// said so. Seed 001 keeps that listing (no active toolset is the whole registry); a start now warns where it passes the
// prompt budget (16,000 characters) and nothing narrows it.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const WARNING = /a session with no toolset active lists every tool it may use/;

// `count` tools, each with an intent of ~500 characters: 40 of them list ~30,000 characters of specs
async function registry(count: number): Promise<string> {
  const temp = await makeTempDir();
  cleanups.push(temp.cleanup);
  await initRepository(temp.path);
  const files: Record<string, string> = {
    'toolsets/few/TOOLSET.hdlp': 'name: few\ndescription: one tool\ntools: [tool-0]\nauthor: TEST-001\nwhy: tests need a narrow set\n',
  };
  for (let at = 0; at < count; at++) {
    files[`tools/tool-${at}/TOOL.hdlp`] = makeToolYaml(`tool-${at}`, { executor: 'shell', method: 'run', shell: '{ argv: [echo, ok] }', group: 'many', intent: `does thing ${at} ${'with many careful words '.repeat(20)}` });
  }
  await commitFiles(temp.path, files);
  return temp.path;
}

function collectingLogger(): { logger: pino.Logger; lines: () => string } {
  let text = '';
  const stream = new Writable({ write: (chunk, _encoding, done) => void ((text += chunk.toString()), done()) });
  return { logger: pino({ level: 'warn' }, stream), lines: () => text };
}

describe('warnOfWholeListing', () => {
  it('warns once the tools a session with no toolset lists pass the prompt budget, naming how many and how to narrow', async () => {
    const opened = await openTestGateway(await registry(40));
    cleanups.push(opened.cleanup);
    const warnings: Array<[unknown, string]> = [];
    warnOfWholeListing(opened.gateway, { warn: (fields: unknown, message: string) => void warnings.push([fields, message]) } as never, 'start it with --toolsets a,b');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]![0]).toMatchObject({ tools: 40, budget_chars: 16000 });
    expect(warnings[0]![1]).toMatch(/the registry has 40 tools, and their specs in tools\/list take more than 16000 characters \(the prompt budget\); start it with --toolsets a,b, or reserve tools and groups with sessions\.on_demand/);
  });

  it.each([
    ['a registry within the budget', 5, false],
    ['tools reserved by sessions.on_demand', 40, true],
  ])('says nothing for %s', async (_case, count, reserved) => {
    const temp = await makeTempDir();
    cleanups.push(temp.cleanup);
    const config = join(temp.path, 'config.yaml');
    await writeFile(config, reserved ? 'sessions:\n  on_demand: [many]\n' : '{}\n');
    const opened = await openTestGateway(await registry(count), { HLDP_CONFIG: config });
    cleanups.push(opened.cleanup);
    const warnings: unknown[] = [];
    warnOfWholeListing(opened.gateway, { warn: (...args: unknown[]) => void warnings.push(args) } as never, 'x');
    expect(warnings).toEqual([]);
  });
});

describe('hldp mcp', () => {
  it('warns at start without --toolsets, and not with them', async () => {
    const repo = await registry(40);
    const whole = await connectStdio(repo);
    cleanups.push(() => whole.close());
    await whole.client.listTools();
    await expect.poll(() => whole.stderr(), { timeout: 20_000 }).toMatch(WARNING);
    expect(whole.stderr()).toMatch(/start hldp mcp with --toolsets a,b/);
    const narrowed = await connectStdio(repo, ['--toolsets', 'few']);
    cleanups.push(() => narrowed.close());
    expect((await narrowed.client.listTools()).tools.map((tool) => tool.name)).toContain('tool-0');
    expect(narrowed.stderr()).not.toMatch(WARNING);
  });
});

describe('hldp serve', () => {
  it('warns at start, naming /mcp?toolsets=', async () => {
    const { config, cleanup } = await makeTestConfig(await registry(40), { HLDP_PORT: '0' });
    cleanups.push(cleanup);
    const { logger, lines } = collectingLogger();
    const server = await startServer(config, { logger, version: 'test', mountMcp });
    cleanups.push(() => server.close());
    await expect.poll(lines, { timeout: 10_000 }).toMatch(WARNING);
    expect(lines()).toMatch(/connect with \/mcp\?toolsets=a,b/);
  });
});
