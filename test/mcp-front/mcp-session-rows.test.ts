import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConsoleRepository } from '../helpers/console-repo.js';
import { makeTempDir } from '../helpers/git.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

// Review Z16-3: every initialize on /mcp left a row in mcp_sessions for 24 h, without a count; one principal opening
// sessions in a loop grew the receipts database ~9 MB a minute. Real hldp serve, real SQLite, raw HTTP as a client sends it.

const TOKENS = { carol: 'mcp-rows-carol-token-0123456789', dave: 'mcp-rows-dave-token-0123456789' } as const;
const digest = (token: string): string => createHash('sha256').update(token).digest('hex');
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

let temp: { path: string; cleanup: () => Promise<void> };
let server: ServiceProcess;

beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-rows-');
  const repo = await makeConsoleRepository(temp.path);
  await writeFile(join(temp.path, 'config.yaml'), `principals:
  carol: { roles: [agent], token_sha256: ${digest(TOKENS.carol)} }
  dave: { roles: [agent], token_sha256: ${digest(TOKENS.dave)} }
sessions: { max_sessions_per_principal: 3 }
`);
  const env = { HLDP_REPO: repo, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  server = await spawnService(['serve', '--port', '0', '--config', join(temp.path, 'config.yaml')], env, / at (http:\/\/[\d.:]+)\n/);
});
afterAll(async () => {
  await server?.stop();
  await temp?.cleanup();
});

async function initialize(who: keyof typeof TOKENS): Promise<string> {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...HEADERS, authorization: `Bearer ${TOKENS[who]}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } }),
  });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('mcp-session-id')!;
}

function rows(): Array<{ id: string; principal: string }> {
  const database = new Database(join(temp.path, 'data', 'receipts.db'), { readonly: true, fileMustExist: true });
  try {
    return database.prepare("SELECT id, json_extract(options, '$.principal') AS principal FROM mcp_sessions").all() as Array<{ id: string; principal: string }>;
  } finally {
    database.close();
  }
}

describe('MCP sessions kept in the store (review Z16-3)', () => {
  it("keeps at most max_sessions_per_principal of one principal's sessions, the newest, and leaves another principal's", async () => {
    const dave = await initialize('dave');
    const carol: string[] = [];
    for (let at = 0; at < 12; at += 1) carol.push(await initialize('carol'));
    const kept = rows();
    expect(kept.filter((row) => row.principal === 'carol').map((row) => row.id).sort()).toEqual(carol.slice(-3).sort());
    expect(kept.filter((row) => row.principal === 'dave').map((row) => row.id)).toEqual([dave]);
  });
});
