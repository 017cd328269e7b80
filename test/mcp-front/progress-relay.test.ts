import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROGRESS_MESSAGE_CHARS } from '../../src/mcp-front/call-meta.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { startTestServer } from '../helpers/http-server.js';
import { mcpToolYaml, nodeServer, RECORDER, writeMcpConfig } from '../mcp-servers/support.js';

const UPDATES = 3000;
const SECRET = 'sk-live-progress-0123456789';

let server: Awaited<ReturnType<typeof startTestServer>>;
let temp: Awaited<ReturnType<typeof makeTempDir>>;
beforeAll(async () => {
  temp = await makeTempDir('hldp-progress-');
  const repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, { 'tools/report/TOOL.hdlp': mcpToolYaml('report', 'recorder', 'report', '{ count: { type: integer, required: true }, pad: { type: integer } }', '{ timeout_ms: 60000 }') });
  // the server is given a secret (a `${VAR}` of the gateway's environment) and says it in every progress message
  const config = await writeMcpConfig(temp.path, { recorder: nodeServer(RECORDER, [], { env: { RECORD_FILE: join(temp.path, 'record.log'), REPORT_SAYS: '${HLDP_TEST_REPORT_KEY}' } }, [temp.path]) });
  // the recorder server writes its record into the test's own (root's) folder: run as root, as mcp-executor's tests do;
  // a root gateway's MCP servers running as nobody is test/sandbox/run-as.test.ts
  server = await startTestServer(repo, { HLDP_CONFIG: config, HLDP_TEST_REPORT_KEY: SECRET, ...(process.getuid?.() === 0 ? { HLDP_SANDBOX_RUN_AS: 'root' } : {}) });
});
afterAll(async () => {
  await server.cleanup();
  await temp.cleanup();
});

describe('progress of a tools/call over MCP, relayed from the server behind the registry (found in review)', () => {
  it('redacts a configured secret the server says in its progress, as its result is (review S, S7)', async () => {
    const client = new Client({ name: 'progress-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const received: Progress[] = [];
      await client.callTool({ name: 'report', arguments: { count: 3 } }, undefined, { onprogress: (update) => received.push(update), timeout: 60_000 });
      expect(received.length).toBeGreaterThan(0);
      for (const update of received) expect(update.message).toMatch(/^\[REDACTED\] \d$/);
    } finally {
      await client.close();
    }
  });

  describe('when the server sends thousands of updates back to back, with long messages', () => {
    it('coalesces them into a few, the last update included and sent before the result, each message cut', async () => {
      const client = new Client({ name: 'progress-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
      try {
        const received: Progress[] = [];
        const result = await client.callTool({ name: 'report', arguments: { count: UPDATES, pad: 5000 } }, undefined, { onprogress: (update) => received.push(update), timeout: 60_000 });
        expect(result.content).toMatchObject([{ type: 'text', text: `reported ${UPDATES}` }]);
        // each update is not kept for a client that may not read: the ones overtaken within an interval are dropped
        expect(received.length).toBeGreaterThan(0);
        expect(received.length).toBeLessThan(UPDATES / 2);
        expect(received.at(-1)).toMatchObject({ progress: UPDATES, total: UPDATES });
        const progress = received.map((update) => update.progress);
        expect(progress).toEqual([...progress].sort((a, b) => a - b));
        for (const update of received) expect(update.message!.length).toBeLessThanOrEqual(PROGRESS_MESSAGE_CHARS);
      } finally {
        await client.close();
      }
    });
  });
});
