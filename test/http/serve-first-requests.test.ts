// Issue #18: prom-client is loaded once `hldp serve` listens (or by the first /metrics), not before. What the gateway
// counts before it is loaded is kept and counted when it is; a fresh server's first /metrics shows the index, the
// default collectors and the calls made while it listened. any-ascii is loaded as the matcher is prepared, after
// listening: a fresh server's first request, a call of a tool named in Cyrillic, still gets the transliterated folder.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/gateway/http/index.js';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { request } from '../helpers/http-server.js';
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
});
