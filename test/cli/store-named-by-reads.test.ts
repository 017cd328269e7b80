// Review userZ4, F7: two `hldp serve` on PostgreSQL (HLDP_STORE_URL in their environment, as README's recipe put it),
// a request pending; the approver's `HLDP_TOKEN=… hldp approvals list --config FILE` (no HLDP_STORE_URL) printed
// "no pending approval requests", exit 0, and created an empty SQLite <data_dir>/receipts.db; `approvals approve ID`
// said APPROVAL_NOT_FOUND and `receipts verify` "intact: 0 receipts" of that file, none naming the store it read.
// Every command that reads what a gateway stored now says which store it read, and creates none.
import { existsSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, describeWithPostgres } from '../helpers/postgres-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { api, policyRepository, startGateway, TOKENS, WRITES_NEED_AN_APPROVER } from '../policy/support.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

const NO_STORE = (database: string): string =>
  `no store at ${database}: nothing was recorded there (is --config, HLDP_DATA_DIR or HLDP_RECEIPTS_DB the gateway's? a gateway on PostgreSQL names its store in store.url of the --config file, or HLDP_STORE_URL)\n`;

/** The environment without the variables named: a shell that lacks them. */
const without = (env: NodeJS.ProcessEnv, ...names: string[]): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(env).map(([key, value]) => [key, names.includes(key) ? undefined : value]));

describe('commands that read a SQLite store that does not exist', () => {
  it('say so, answer as an empty store, and create none: approvals list, show, approve, confirm, suggest', { timeout: 180_000 }, async () => {
    const { repo, temp } = await policyRepository({});
    cleanups.push(() => temp.cleanup());
    const data = join(temp.path, 'typo');
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: data, HLDP_WORKSPACE: temp.path };
    const database = join(data, 'receipts.db');
    const list = await runCli(['approvals', 'list', '--repo', repo], { env });
    expect(list).toMatchObject({ code: 0, stdout: '', stderr: NO_STORE(database) });
    const show = await runCli(['approvals', 'show', 'apr_nope', '--repo', repo], { env });
    expect(show.code).toBe(1);
    expect(show.stderr).toBe(`${NO_STORE(database)}no approval request 'apr_nope' that 'local' may see in ${database}\n`);
    const approve = await runCli(['approvals', 'approve', 'apr_nope', '--repo', repo], { env });
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain(NO_STORE(database));
    expect(approve.stderr).toMatch(/APPROVAL_NOT_FOUND: no approval request 'apr_nope'.* \(looked for in .*typo\/receipts\.db\)\n$/);
    const confirm = await runCli(['confirm', 'no-such-token-0123456789', '--repo', repo], { env });
    expect(confirm.code).toBe(1);
    expect(confirm.stderr).toContain(NO_STORE(database));
    const suggest = await runCli(['suggest', 'examples', '--repo', repo], { env });
    expect(suggest.code).toBe(0);
    expect(suggest.stderr).toContain(NO_STORE(database));
    expect(existsSync(data)).toBe(false);
  });

  it('name the store they read when it holds nothing: approvals list, receipts verify', { timeout: 120_000 }, async () => {
    const { repo, temp } = await policyRepository({});
    cleanups.push(() => temp.cleanup());
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path };
    const database = join(temp.path, 'data', 'receipts.db');
    // one receipt in the store, whatever the call's outcome
    await runCli(['call', 'file-read', '--params', '{"path":"nope.txt"}', '--repo', repo], { env });
    const list = await runCli(['approvals', 'list', '--repo', repo], { env });
    expect(list).toMatchObject({ code: 0, stdout: '', stderr: `no pending approval requests in ${database}\n` });
    const verify = await runCli(['receipts', 'verify'], { env });
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/^intact: 1 receipts from genesis to head seq 1\n/);
    expect(verify.stderr).toBe(`walked the receipts in ${database}\n`);
  });
});

describeWithPostgres('hldp approvals and receipts verify against a gateway on PostgreSQL', () => {
  it('without the store\'s URL say there is no store where they looked and create none; with store.url in the config file they find the request', { timeout: 240_000 }, async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const { repo, temp } = await policyRepository(WRITES_NEED_AN_APPROVER);
    cleanups.push(() => temp.cleanup());
    await mkdir(join(temp.path, 'workspace'), { recursive: true });
    // README's recipe as it was: the URL in the environment of serve only
    const gateway = await startGateway(repo, temp.path, { env: { HLDP_STORE_URL: database.url }, logLevel: 'warn' });
    cleanups.push(() => gateway.service.stop());
    const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-write', params: { path: 'x.txt', content: 'x\n' } } });
    expect(call.status, JSON.stringify(call.body)).toBe(202);
    const id = call.body.id as string;

    // the approver's shell: the config and its token, not HLDP_STORE_URL
    const shell = { ...without(gateway.env, 'HLDP_STORE_URL'), HLDP_TOKEN: TOKENS.alice };
    const sqlite = join(temp.path, 'data', 'receipts.db');
    const list = await runCli(['approvals', 'list', '--repo', repo, '--config', gateway.configFile], { env: shell });
    expect(list).toMatchObject({ code: 0, stdout: '', stderr: NO_STORE(sqlite) });
    const approve = await runCli(['approvals', 'approve', id, '--repo', repo, '--config', gateway.configFile], { env: shell });
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain(`APPROVAL_NOT_FOUND: no approval request '${id}'`);
    expect(approve.stderr).toContain(NO_STORE(sqlite));
    const verify = await runCli(['receipts', 'verify', '--config', gateway.configFile], { env: shell });
    expect(verify).toMatchObject({ code: 0, stderr: NO_STORE(sqlite) });
    expect(existsSync(sqlite)).toBe(false);

    // README's recipe now: store.url in the config file the CLI is given too
    await appendFile(gateway.configFile, `store: { url: "${database.url}" }\n`);
    const named = await runCli(['approvals', 'list', '--repo', repo, '--config', gateway.configFile], { env: shell });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain(`${id}  pending    file-write  by bot`);
    const none = await runCli(['approvals', 'list', '--status', 'denied', '--repo', repo, '--config', gateway.configFile], { env: shell });
    expect(none.stderr).toMatch(/^no denied approval requests in PostgreSQL postgres:\/\/\S+\n$/);
    const walked = await runCli(['receipts', 'verify', '--config', gateway.configFile], { env: shell });
    expect(walked.code).toBe(0);
    expect(walked.stderr).toMatch(/^no receipts in PostgreSQL postgres:\/\/\S+\n$/);
    expect(existsSync(sqlite)).toBe(false);
  });
});
