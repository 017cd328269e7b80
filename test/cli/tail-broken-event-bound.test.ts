// Review Z14, Z14-2. `definitions.broken` named every problem of the registry in one event: 15,000 broken definitions
// made an event past the 8 MiB `hldp tail` stops at (fixz22b's bound on an event that never ends), so an admin's tail
// died on the gateway's own event, and again on each resume (17.5 MB at 40,000; every webhook target received it whole
// too). The event now names the first 100 files and problems and counts them all; `GET /v1/tools` lists every one.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

const BROKEN = 150;
let temp: { path: string; cleanup: () => Promise<void> };
let service: ServiceProcess | undefined;

beforeAll(async () => {
  temp = await makeTempDir('hldp-broken-event-');
  // a plain folder registry: one good tool, and BROKEN definitions each missing its author
  const tool = (name: string, author: boolean): string =>
    [`name: ${name}`, `display: ${name}`, `intent: print a word (${name})`, 'method: run', 'executor: shell', 'params_schema: {}', 'shell: { argv: [echo, hi] }', ...(author ? ['author: TEST-001'] : []), 'created: 2026-12-06', 'why: tests need many broken definitions'].join('\n');
  for (let i = 0; i <= BROKEN; i++) {
    const name = i === 0 ? 'good' : `broken-${String(i).padStart(3, '0')}`;
    await mkdir(join(temp.path, 'repo', 'tools', name), { recursive: true });
    await writeFile(join(temp.path, 'repo', 'tools', name, 'TOOL.hdlp'), tool(name, i === 0));
  }
  const env = { HLDP_REPO: join(temp.path, 'repo'), HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  service = await spawnService(['serve', '--port', '0'], env, / at (http:\/\/[\d.:]+)\n/);
}, 180_000);
afterAll(async () => {
  await service?.stop();
  await temp?.cleanup();
});

describe('the definitions.broken event of a registry with many broken definitions (review Z14, Z14-2)', () => {
  it('names the first 100 problems and files and counts them all, as an admin\'s hldp tail reads it; GET /v1/tools lists every one', { timeout: 120_000 }, async () => {
    const tail = await runCli(['tail', '--url', service!.url, '--types', 'definitions.broken', '--after', '0', '--count', '1', '--json'], { timeoutMs: 90_000 });
    expect(tail.code, tail.stderr).toBe(0);
    const event = JSON.parse(tail.stdout.trim()) as { type: string; data: { errors: Array<{ file: string; code: string }>; files: string[]; errors_total: number; files_total: number } };
    expect(event.type).toBe('definitions.broken');
    expect(event.data.errors).toHaveLength(100);
    expect(event.data.files).toHaveLength(100);
    expect(event.data.files_total).toBe(BROKEN);
    expect(event.data.errors_total).toBeGreaterThanOrEqual(BROKEN);
    expect(event.data.errors[0]!.file).toMatch(/^tools\/broken-\d{3}\/TOOL\.hdlp$/);
    const tools = (await (await fetch(`${service!.url}/v1/tools`)).json()) as { errors: unknown[] };
    expect(tools.errors).toHaveLength(event.data.errors_total);
  });
});
