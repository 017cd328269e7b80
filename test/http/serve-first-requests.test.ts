// Issue #18: prom-client is loaded once `hldp serve` listens (or by the first /metrics), not before. What the gateway
// counts before it is loaded is kept and counted when it is; a fresh server's first /metrics shows the index, the
// default collectors and the calls made while it listened. any-ascii is loaded as the matcher is prepared, after
// listening: a fresh server's first request, a call of a tool named in Cyrillic, still gets the transliterated folder.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/gateway/http/index.js';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

describe('GatewayMetrics', () => {
  describe('when the gateway counts before prom-client is loaded', () => {
    it('counts it once loaded, in order, with the default collectors', async () => {
      const metrics = new GatewayMetrics();
      const observer = metrics.observer();
      observer.matched!(0.0002);
      observer.scanned!({ error: new Error('unreachable') });
      const watched = metrics.notifications('0 127.0.0.1:9');
      watched.watch();
      watched.failed();
      metrics.eventSubscribers(() => 3);
      const { contentType, text } = await metrics.exposition();
      expect(contentType).toMatch(/^text\/plain/);
      expect(text).toMatch(/^hldp_match_duration_seconds_count 1$/m);
      expect(text).toMatch(/^hldp_scans_total\{result="failed"\} 1$/m);
      expect(text).toMatch(/^hldp_notifications_failed_total\{target="0 127\.0\.0\.1:9"\} 1$/m);
      expect(text).toMatch(/^hldp_notifications_delivered_total\{target="0 127\.0\.0\.1:9"\} 0$/m);
      expect(text).toMatch(/^hldp_notifications_skipped_total\{target="0 127\.0\.0\.1:9"\} 0$/m);
      expect(text).toMatch(/^hldp_event_subscribers 3$/m);
      expect(text).toMatch(/^hldp_process_cpu_user_seconds_total /m);
    });

    it('counts what comes after it is loaded at once', async () => {
      const metrics = new GatewayMetrics();
      await metrics.start();
      metrics.observer().matched!(0.0002);
      expect((await metrics.exposition()).text).toMatch(/^hldp_match_duration_seconds_count 1$/m);
    });
  });
});

describe('hldp serve', () => {
  describe('when its first requests are a call by name and /metrics', () => {
    it('reports the call, the index and the process', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/greet/TOOL.hdlp': makeToolYaml('greet', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hello] }' }) });
      const server = await home.serve(['--repo', repo]);

      const call = await request(server, 'POST', '/v1/call', { body: { tool: 'greet', params: {} } });
      expect(call.json).toMatchObject({ ok: true, tool: 'greet' });
      const metrics = await request(server, 'GET', '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/^hldp_calls_total\{tool="greet",executor="shell",outcome="ok"\} 1$/m);
      expect(metrics.text).toMatch(/^hldp_index_tools 1$/m);
      expect(metrics.text).toMatch(/^hldp_index_info\{commit="[0-9a-f]{40}"\} 1$/m);
      expect(metrics.text).toMatch(/^hldp_process_cpu_user_seconds_total /m);
    }, 60_000);
  });

  describe('when its first request calls a missing tool named in another script', () => {
    it('suggests the folder its name transliterates to', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { 'tools/greet/TOOL.hdlp': makeToolYaml('greet', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hello] }' }) });
      const server = await home.serve(['--repo', repo]);

      const call = await request(server, 'POST', '/v1/call', { body: { tool: 'погода-москва', params: {} } });
      expect(call.json).toMatchObject({ found: false, code: 'TOOL_NOT_FOUND' });
      expect(JSON.stringify(call.json)).toContain('tools/pogoda-moskva/TOOL.hdlp');
    }, 60_000);
  });

  // ajv is loaded at its first use (issue #18): a start from a warm cache parses no definition, and the params validator
  // and the embedded gatekeeper's request checks are made at their first call, so these are the first to load it
  describe('when it starts from a warm cache and its first requests are calls checked by a params schema', () => {
    it('refuses params the schema refuses, fills defaults, and runs a call through the embedded gatekeeper', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, {
        'tools/say/TOOL.hdlp': makeToolYaml('say', {
          executor: 'shell',
          method: 'run',
          shell: '{ argv: [echo, "{text}", "{mode}"] }',
          params_schema: '{ text: { type: string, required: true, pattern: "^[a-z]+$", description: text }, mode: { type: string, enum: [fast, full], default: fast, description: mode } }',
        }),
        'tools/run/TOOL.hdlp': makeToolYaml('run', { params_schema: '{ cmd: { type: string, required: true, description: the command } }' }),
      });
      // the first start scans and writes the cache; the second is served from it
      await (await home.serve(['--repo', repo])).stop();
      const server = await home.serve(['--repo', repo]);

      const refused = await request(server, 'POST', '/v1/call', { body: { tool: 'say', params: { text: 'Hello!', mode: 'slow' } } });
      expect(refused.status).toBe(422);
      expect(refused.json).toMatchObject({ code: 'INVALID_PARAMS' });
      expect(JSON.stringify(refused.json)).toContain("'text' must match pattern");
      expect(JSON.stringify(refused.json)).toContain("'mode' must be one of \\\"fast\\\", \\\"full\\\"");
      const said = await request(server, 'POST', '/v1/call', { body: { tool: 'say', params: { text: 'hello' } } });
      expect(said.json).toMatchObject({ ok: true, tool: 'say', output: 'hello fast\n' });
      const ran = await request(server, 'POST', '/v1/call', { body: { tool: 'run', params: { cmd: 'echo gatekept' } } });
      expect(ran.json).toMatchObject({ ok: true, tool: 'run', output: 'gatekept\n' });
    }, 60_000);
  });

  // a cold start streams each parsed entry to the scan cache file and serves its tools from that file
  describe('when it starts cold over a repository with broken definitions', () => {
    it('serves its tools by name and lists the broken ones\' diagnostics as a scan held in memory reports them', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, {
        'tools/greet/TOOL.hdlp': makeToolYaml('greet', { executor: 'shell', method: 'run', shell: '{ argv: [echo, hello] }', aliases: '[hello]' }),
        'tools/other/TOOL.hdlp': makeToolYaml('other'),
        'tools/broken/TOOL.hdlp': 'name: broken\n  bad: [\n',
        'tools/late/TOOL.hdlp': makeToolYaml('late', { created: 'someday' }),
      });
      expect(await cacheFiles(home.env.HLDP_CACHE_DIR!)).toEqual([]);
      const server = await home.serve(['--repo', repo]);

      const call = await request(server, 'POST', '/v1/call', { body: { tool: 'hello', params: {} } });
      expect(call.json).toMatchObject({ ok: true, tool: 'greet', output: 'hello\n' });
      const other = await request(server, 'GET', '/v1/tools/other');
      expect(other.status).toBe(200);
      expect(other.json).toMatchObject({ name: 'other', intent: 'does other things', source: { path: 'tools/other/TOOL.hdlp' } });

      // a cache folder that cannot be made: hldp scan holds its scan in memory
      await writeFile(join(home.path, 'not-a-folder'), '');
      const inMemory = await runCli(['scan', '--repo', repo, '--json'], { env: { ...home.env, HLDP_CACHE_DIR: join(home.path, 'not-a-folder') } });
      const expected = JSON.parse(inMemory.stdout) as { tools: Array<{ name: string }>; errors: unknown[]; warnings: unknown[] };
      expect(expected.errors).toEqual(expect.arrayContaining([
        expect.objectContaining({ file: 'tools/broken/TOOL.hdlp', code: 'YAML_SYNTAX', line: 1 }),
        expect.objectContaining({ file: 'tools/late/TOOL.hdlp', line: 8 }),
      ]));
      // asked for by name, a broken tool says why, with its diagnostics
      const broken = await request(server, 'GET', '/v1/tools/broken');
      expect(broken.status).toBe(409);
      expect(broken.json).toMatchObject({ code: 'TOOL_BROKEN', diagnostics: expected.errors.filter((error) => (error as { file: string }).file === 'tools/broken/TOOL.hdlp') });
      const listed = await request(server, 'GET', '/v1/tools?summary=true');
      expect(listed.json).toMatchObject({ total: 2, errors: expected.errors, warnings: expected.warnings });
      expect((listed.json.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(expected.tools.map((tool) => tool.name));
      expect((await request(server, 'GET', '/healthz')).json).toMatchObject({ status: 'degraded', tools: 2, errors: expected.errors.length });
      // the scan it served from is the cache file it wrote
      expect(await cacheFiles(home.env.HLDP_CACHE_DIR!)).toEqual([expect.stringMatching(/\/index\/[0-9a-f]{40}\.json$/)]);
    }, 60_000);
  });
});

// every file under the cache folder's index folders
async function cacheFiles(cacheDir: string): Promise<string[]> {
  try {
    return (await readdir(cacheDir, { recursive: true })).filter((path) => /(^|\/)index\/./.test(path));
  } catch {
    return [];
  }
}
