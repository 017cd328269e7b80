import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { runCli } from '../helpers/run-cli.js';
import type { ServiceProcess } from '../helpers/spawn-service.js';
import { api, policyRepository, startGateway, WRITES_NEED_AN_APPROVER, type Who } from './support.js';

// Review userW, W3: `hldp approvals approve` run from a shell without the deployment's credentials (no --config, or
// no HLDP_API_TOKEN) judged the request's caller "not configured (any more)" and cancelled the request for good; the
// waiting caller was told its principal was gone. What a one-shot CLI was given is its view, not the deployment's:
// it must leave the request pending, say why, and the request must stay approvable by those who have the config.

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

/** A real `hldp serve` over `repo` (the test principals, api_token as admin), its data, cache and workspace in `folder`. */
async function serve(repo: string, folder: string, env: NodeJS.ProcessEnv = {}): Promise<{ url: string; service: ServiceProcess; env: NodeJS.ProcessEnv; configFile: string }> {
  await mkdir(folder, { recursive: true });
  const started = await startGateway(repo, folder, { logLevel: 'warn', env });
  cleanups.push(() => started.service.stop());
  return started;
}

/** `who` asks for a write that waits for an approver; resolves to the request's id. */
async function pendingWrite(url: string, who: Who, path: string): Promise<string> {
  const call = await api(url, 'POST', '/v1/call', { who, body: { tool: 'file-write', params: { path, content: 'ran\n', create_dirs: true } } });
  expect(call, JSON.stringify(call.body)).toMatchObject({ status: 202, body: { status: 'approval_required' } });
  return call.body.id as string;
}

/** The environment without the variables named: a shell that lacks them. */
const without = (env: NodeJS.ProcessEnv, ...names: string[]): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(env).map(([key, value]) => [key, names.includes(key) ? undefined : value]));

/** What the CLI printed of an approve that decided nothing: refused, the request named as pending, and what to run with. */
function expectLeftPending(run: { code: number; stdout: string; stderr: string }, caller: string, fix: RegExp): void {
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(run.stderr).toContain(`APPROVAL_MISMATCH: request '`);
  expect(run.stderr).toContain(`was made by '${caller}', a principal this process's configuration does not hold; nothing was decided, it stays pending`);
  expect(run.stderr).toMatch(fix);
  expect(run.stderr).not.toContain('any more');
}

describe('hldp approvals approve from a shell without the gateway\'s credentials, on SQLite', () => {
  it('leaves a configured principal\'s request pending when --config is forgotten; with it, the request runs', { timeout: 120_000 }, async () => {
    const { repo, temp } = await policyRepository(WRITES_NEED_AN_APPROVER);
    cleanups.push(() => temp.cleanup());
    const gateway = await serve(repo, temp.path);
    const id = await pendingWrite(gateway.url, 'bot', 'forgot-config.txt');

    const forgot = await runCli(['approvals', 'approve', id, '--repo', repo], { env: gateway.env });
    expectLeftPending(forgot, 'bot', /--config FILE .*principals\.bot.*HLDP_PRINCIPAL_BOT_TOKEN/);
    const seen = await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'bot' });
    expect(seen.body.approval).toMatchObject({ status: 'pending', decided_by: null, receipt_id: null });
    expect(await readFile(join(temp.path, 'workspace', 'forgot-config.txt'), 'utf8').catch(() => undefined)).toBeUndefined();

    const withConfig = await runCli(['approvals', 'approve', id, '--repo', repo, '--config', gateway.configFile], { env: gateway.env });
    expect(withConfig.code, withConfig.stdout + withConfig.stderr).toBe(0);
    expect(withConfig.stderr).toContain(`${id} approved by local`);
    expect(await readFile(join(temp.path, 'workspace', 'forgot-config.txt'), 'utf8')).toBe('ran\n');
  });

  it('leaves api_token\'s admin\'s request pending when HLDP_API_TOKEN is not set; with it, the request runs', { timeout: 120_000 }, async () => {
    const { repo, temp } = await policyRepository(WRITES_NEED_AN_APPROVER);
    cleanups.push(() => temp.cleanup());
    const gateway = await serve(repo, temp.path);
    const id = await pendingWrite(gateway.url, 'admin', 'no-api-token.txt');

    const bare = await runCli(['approvals', 'approve', id, '--repo', repo, '--config', gateway.configFile], { env: without(gateway.env, 'HLDP_API_TOKEN') });
    expectLeftPending(bare, 'admin', /HLDP_API_TOKEN set to the gateway's api_token/);
    expect((await api(gateway.url, 'GET', `/v1/approvals/${id}`, { who: 'admin' })).body.approval).toMatchObject({ status: 'pending', decided_by: null });

    const withToken = await runCli(['approvals', 'approve', id, '--repo', repo, '--config', gateway.configFile], { env: gateway.env });
    expect(withToken.code, withToken.stdout + withToken.stderr).toBe(0);
    expect(await readFile(join(temp.path, 'workspace', 'no-api-token.txt'), 'utf8')).toBe('ran\n');
  });
});

describeWithPostgres('hldp approvals approve without HLDP_API_TOKEN, two hldp serve on one PostgreSQL database', () => {
  it('leaves admin\'s request pending at both instances, and an approver at the other instance still runs it', { timeout: 180_000 }, async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const { repo, temp } = await policyRepository(WRITES_NEED_AN_APPROVER);
    cleanups.push(() => temp.cleanup());
    // the instances of one deployment run calls in one workspace: an instance of another may not run A's request
    const workspace = join(temp.path, 'workspace');
    await mkdir(workspace, { recursive: true });
    const env = { HLDP_STORE_URL: database.url, HLDP_WORKSPACE: workspace };
    const a = await serve(repo, join(temp.path, 'a'), env);
    const b = await serve(repo, join(temp.path, 'b'), env);
    const id = await pendingWrite(a.url, 'admin', 'pg.txt');

    // the operator's shell: the store and the repository, but neither the config nor HLDP_API_TOKEN
    const operator = await runCli(['approvals', 'approve', id, '--repo', repo], { env: without(a.env, 'HLDP_API_TOKEN') });
    expectLeftPending(operator, 'admin', /HLDP_API_TOKEN set to the gateway's api_token/);
    expect((await api(b.url, 'GET', `/v1/approvals/${id}`, { who: 'admin' })).body.approval).toMatchObject({ status: 'pending', decided_by: null });

    const approved = await api(b.url, 'POST', `/v1/approvals/${id}/approve`, { who: 'alice', body: {} });
    expect(approved, JSON.stringify(approved.body)).toMatchObject({ status: 200, body: { approval: { status: 'approved', decided_by: 'alice' }, receipt: { ok: true, caller: 'admin' } } });
    expect(await readFile(join(workspace, 'pg.txt'), 'utf8')).toBe('ran\n');
  });
});
