import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../src/gateway/service/index.js';
import { openTestGateway } from '../helpers/gateway.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function gatewayOver(repo = 'native-repo') {
  const opened = await openTestGateway(repo);
  cleanups.push(opened.cleanup);
  return opened;
}

function receiptOf(outcome: CallOutcome) {
  if (outcome.kind !== 'receipt') throw new Error(`expected a receipt, got ${outcome.kind}: ${JSON.stringify(outcome)}`);
  return outcome.receipt;
}

const shellTool = (name: string, argv: string, extra: Record<string, string> = {}) =>
  makeToolYaml(name, { executor: 'shell', method: 'run', shell: `{ argv: ${argv} }`, ...extra });

describe('Gateway (spec §4 acceptance)', () => {
  it('finds shell-exec, runs echo hello, and returns hello', async () => {
    const { gateway } = await gatewayOver();
    const receipt = receiptOf(await gateway.call('shell-exec', { cmd: 'echo hello' }));
    expect(receipt).toMatchObject({ ok: true, tool: 'shell-exec', method: 'exec', output: 'hello\n', error: null, exit_code: 0 });
    expect(receipt.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('answers {found: false} for a tool that is not in the repository', async () => {
    const { gateway } = await gatewayOver();
    const outcome = await gateway.call('deploy-rocket', {});
    expect(outcome).toMatchObject({ kind: 'not_found', found: false, code: 'TOOL_NOT_FOUND' });
    expect(await gateway.receipts()).toEqual([]);
  });

  it('returns the full, raw stderr of a failing command, and stores the same receipt', async () => {
    const { gateway } = await gatewayOver();
    const stderr = Array.from({ length: 50 }, (_, line) => `problem ${line}: 路径不存在`).join('\n');
    const receipt = receiptOf(await gateway.call('shell-exec', { cmd: `printf '%s\\n' "${stderr}" >&2; exit 7` }));
    expect(receipt).toMatchObject({ ok: false, code: 'NONZERO_EXIT', exit_code: 7, error: `${stderr}\n` });
    expect(await gateway.store.receipts.get(receipt.id)).toEqual(receipt);
  });

  it('finds a TOOL.hdlp added to the repository on the next scan', async () => {
    const temp = await makeTempDir();
    cleanups.push(temp.cleanup);
    const repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, { 'tools/first/TOOL.hdlp': shellTool('first', '[echo, first]') });
    const { gateway } = await gatewayOver(repo);
    expect((await gateway.call('second', {})).kind).toBe('not_found');
    const commit = await commitFiles(repo, { 'tools/second/TOOL.hdlp': shellTool('second', '[echo, second]') });
    const rescan = await gateway.rescan();
    expect(rescan).toMatchObject({ changed: true, commit });
    expect(receiptOf(await gateway.call('second', {}))).toMatchObject({ ok: true, output: 'second\n', commit });
  });
});

describe('Gateway calls', () => {
  describe('when params do not fit the schema', () => {
    it('runs nothing and names each offending param with the schema', async () => {
      const { gateway } = await gatewayOver();
      const outcome = await gateway.call('shell-exec', { cmd: 42, colour: 'red' });
      expect(outcome).toMatchObject({ kind: 'invalid_params', code: 'INVALID_PARAMS', tool: 'shell-exec', schema: expect.stringContaining('cmd: string') });
      expect(outcome.kind === 'invalid_params' && outcome.error).toMatch(/'cmd'.*string[\s\S]*colour|colour[\s\S]*'cmd'/);
      expect(await gateway.receipts()).toEqual([]);
    });
  });

  describe('when a tool requires confirmation', () => {
    it('runs nothing until confirmed, then exactly that call, once', async () => {
      const { gateway, workspace } = await gatewayOver();
      const outcome = await gateway.call('file-write', { path: 'out.txt', content: 'written\n' });
      if (outcome.kind !== 'confirmation_required') throw new Error(outcome.kind);
      await expect(readFile(join(workspace, 'out.txt'), 'utf8')).rejects.toThrow();
      const confirmed = receiptOf(await gateway.confirm(outcome.confirmation.token!));
      expect(confirmed).toMatchObject({ ok: true, tool: 'file-write', params: { path: 'out.txt', content: 'written\n', append: false, create_dirs: false } });
      expect(confirmed.confirmation).toBe(outcome.confirmation.id);
      expect(confirmed.approval).toMatchObject({ id: outcome.confirmation.id, status: 'approved', via: 'confirm', rule: null });
      expect(await readFile(join(workspace, 'out.txt'), 'utf8')).toBe('written\n');
      expect(await gateway.confirm(outcome.confirmation.token!)).toMatchObject({ kind: 'confirmation_invalid', reason: 'used' });
    });

    it('gives each call its own token: changed params need a new one', async () => {
      const { gateway } = await gatewayOver();
      const first = await gateway.call('file-write', { path: 'a.txt', content: 'a' });
      const second = await gateway.call('file-write', { path: 'a.txt', content: 'b' });
      if (first.kind !== 'confirmation_required' || second.kind !== 'confirmation_required') throw new Error('expected confirmations');
      expect(first.confirmation.token!).not.toBe(second.confirmation.token!);
      expect(receiptOf(await gateway.confirm(second.confirmation.token!)).params).toMatchObject({ content: 'b' });
    });

    it("refuses a token made before the tool's definition changed (another commit leaves it good: review userX, X3)", async () => {
      const temp = await makeTempDir();
      cleanups.push(temp.cleanup);
      const repo = await initRepository(join(temp.path, 'repo'));
      const confirmTool = shellTool('guarded', '[echo, guarded]', { constraints: '{ require_confirm: true }' });
      await commitFiles(repo, { 'tools/guarded/TOOL.hdlp': confirmTool });
      const { gateway } = await gatewayOver(repo);
      const outcome = await gateway.call('guarded', {});
      if (outcome.kind !== 'confirmation_required') throw new Error(outcome.kind);
      await commitFiles(repo, { 'tools/guarded/TOOL.hdlp': shellTool('guarded', '[echo, guarded, again]', { constraints: '{ require_confirm: true }' }) });
      await gateway.rescan();
      expect(await gateway.confirm(outcome.confirmation.token!)).toMatchObject({ kind: 'confirmation_invalid', reason: 'mismatch' });
    });
  });

  describe('when the index changes while a call runs', () => {
    it('finishes the call on the index it started with, and its receipt names that commit', async () => {
      const temp = await makeTempDir();
      cleanups.push(temp.cleanup);
      const repo = await initRepository(join(temp.path, 'repo'));
      const before = await commitFiles(repo, { 'tools/slow/TOOL.hdlp': makeToolYaml('slow', { executor: 'shell', method: 'run', shell: '{ script: "sleep 0.3; echo done" }' }) });
      const { gateway } = await gatewayOver(repo);
      const running = gateway.call('slow', {});
      const after = await commitFiles(repo, { 'tools/slow/TOOL.hdlp': null, 'tools/fast/TOOL.hdlp': shellTool('fast', '[echo, fast]') });
      await gateway.rescan();
      expect(gateway.registry.index.commit).toBe(after);
      expect(receiptOf(await running)).toMatchObject({ ok: true, output: 'done\n', commit: before });
      expect((await gateway.call('slow', {})).kind).toBe('not_found');
    });
  });
});

describe('Gateway secrets', () => {
  it('shows none of its own secrets in a receipt, even when a tool prints them', async () => {
    const secrets = { HLDP_API_TOKEN: 'api-token-0123456789abcdef', HLDP_WEBHOOK_SECRET: 'webhook-secret-0123', HLDP_REPO_TOKEN: 'repo-token-0123456789' };
    const opened = await openTestGateway('native-repo', secrets);
    cleanups.push(opened.cleanup);
    // printed in two halves, so that the secrets are in the output but not in the params
    const halves = Object.values(secrets).map((secret) => `${secret.slice(0, 4)}' '${secret.slice(4)}`);
    // with a token configured, a call without a principal is refused: the api_token's principal is admin
    const receipt = receiptOf(await opened.gateway.call('shell-exec', { cmd: `printf '%s%s %s%s %s%s\\n' '${halves.join("' '")}' >&2; exit 1` }, { caller: 'admin' }));
    expect(receipt.error).toBe('[REDACTED] [REDACTED] [REDACTED]\n');
    const [stored] = await opened.gateway.receipts();
    expect(JSON.stringify(stored)).not.toMatch(/api-token-|webhook-secret-|repo-token-/);
  });
});

describe('Gateway receipts', () => {
  it('fit schemas/receipt.schema.json and begin with the spec six fields', async () => {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    // ajv-formats is CommonJS: its default export is the plugin itself, typed as a module under NodeNext
    const addFormats = (await import('ajv-formats')).default as unknown as (ajv: InstanceType<typeof Ajv2020>) => void;
    const ajv = new Ajv2020({ allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(join('schemas', 'receipt.schema.json'), 'utf8')));
    const { gateway } = await gatewayOver();
    const receipts = [receiptOf(await gateway.call('shell-exec', { cmd: 'echo hello' })), receiptOf(await gateway.call('shell-exec', { cmd: 'exit 3' }))];
    for (const receipt of [...receipts, ...(await gateway.receipts())]) {
      expect(validate(receipt), ajv.errorsText(validate.errors)).toBe(true);
      expect(Object.keys(receipt).slice(0, 6)).toEqual(['ok', 'tool', 'method', 'output', 'error', 'duration_ms']);
    }
  });
});
