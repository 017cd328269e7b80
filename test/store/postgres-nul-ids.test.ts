// Review Z11, Z11-3: on PostgreSQL a NUL (%00) in an approval or session id, or in an approvals filter, was sent to the
// server as a text parameter, which refuses it (invalid byte sequence for encoding "UTF8": 0x00): a 500 logged at
// error level, or for approve/cancel a 503 STORE_UNAVAILABLE, "the store cannot be reached" — false, and advice to retry.
// SQLite answers 404 / an empty page; so does PostgreSQL now, the value matching nothing before it reaches the driver.
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { makeToolYaml, writeFiles } from '../helpers/git.js';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

describeWithPostgres('a NUL in an approval or session id, or an approvals filter, on PostgreSQL', () => {
  it('is answered as on SQLite: 404 or an empty page, never a 5xx', async () => {
    const database = await createTestDatabase();
    try {
      const repo = join(home.path, 'repo');
      await writeFiles(repo, { 'tools/small/TOOL.hdlp': makeToolYaml('small', { executor: 'shell', shell: '{ argv: [echo, small] }' }) });
      const server = await home.serve(['--repo', repo], { HLDP_STORE_URL: database.url });
      const ask = async (method: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
        const response = await fetch(`${server.url}${path}`, { method, ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}) });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const seen = {
        byTool: await ask('GET', '/v1/approvals?tool=%00'),
        byCaller: await ask('GET', '/v1/approvals?caller=a%00b'),
        approval: await ask('GET', '/v1/approvals/%00'),
        approve: await ask('POST', '/v1/approvals/%00/approve'),
        cancel: await ask('POST', '/v1/approvals/%00/cancel'),
        session: await ask('GET', '/v1/sessions/%00'),
        sessionTools: await ask('GET', '/v1/sessions/%00/tools'),
        sessionDeleted: await ask('DELETE', '/v1/sessions/%00'),
      };
      const log = server.stderr();
      await server.stop();
      expect(seen.byTool).toMatchObject({ status: 200, body: { approvals: [] } });
      expect(seen.byCaller).toMatchObject({ status: 200, body: { approvals: [] } });
      expect(seen.approval).toMatchObject({ status: 404, body: { code: 'APPROVAL_NOT_FOUND' } });
      for (const answer of [seen.approve, seen.cancel]) expect(answer.status, JSON.stringify(answer.body)).toBe(404);
      for (const answer of [seen.session, seen.sessionTools, seen.sessionDeleted]) expect(answer).toMatchObject({ status: 404, body: { code: 'SESSION_NOT_FOUND' } });
      expect(log).not.toContain('invalid byte sequence');
    } finally {
      await database.drop();
    }
  }, 240_000);
});
