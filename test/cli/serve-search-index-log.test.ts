// Review userZ6, F8. A search index file in the cache that cannot be read (truncated) was said by a Node process
// warning on stderr — "(node:5590) [HLDP_SEARCH_INDEX_REFUSED] Warning: …" and "(Use node --trace-warnings …)" —
// outside the JSON log every other event of hldp serve goes to, so a log shipper never saw it. It is a warn line of
// the log now, with its code; the index is built again as before.
import { readdir, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { api, startPolicyGateway, type PolicyGateway } from '../policy/support.js';

/** Waits (at most two minutes) for the gateway's intent matching to be ready, as GET /healthz says it. */
async function matchingReady(url: string): Promise<void> {
  let matching: unknown;
  for (const end = Date.now() + 120_000; Date.now() < end; ) {
    matching = (await api(url, 'GET', '/healthz', { who: 'admin' })).body?.matching;
    if (matching === 'ready') return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`matching is ${String(matching)} after two minutes`);
}

describe('hldp serve over a damaged search index file (review userZ6 F8)', () => {
  let gateway: PolicyGateway;
  let again: ServiceProcess | undefined;
  afterAll(async () => {
    await again?.stop();
    await gateway?.stop();
  }, 60_000);

  it('says it in its JSON log, with its code, not as a Node warning, and builds the index again', { timeout: 300_000 }, async () => {
    gateway = await startPolicyGateway({}, { logLevel: 'warn' });
    await matchingReady(gateway.url);
    await gateway.service.stop();
    const folder = join(gateway.env.HLDP_CACHE_DIR!, 'search');
    const files = (await readdir(folder)).filter((name) => name.endsWith('.v8'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) await truncate(join(folder, name), 100);

    again = await spawnService(['serve', '--port', '0', '--repo', gateway.repo, '--config', gateway.configFile], gateway.env, / at (http:\/\/[\d.:]+)\n/);
    await matchingReady(again.url);
    const stderr = again.stderr();
    const lines = stderr.split('\n').filter((line) => line.includes('HLDP_SEARCH_INDEX_REFUSED'));
    expect(lines.length, stderr).toBeGreaterThan(0);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ level: 40, code: 'HLDP_SEARCH_INDEX_REFUSED', msg: expect.stringMatching(/^search index file .*\.v8 not read \(.*\): built again$/) });
    }
    expect(stderr).not.toContain('Warning:');
    expect(stderr).not.toContain('--trace-warnings');
  });
});
