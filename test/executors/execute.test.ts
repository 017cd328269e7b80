import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { execute, type ExecutionContext } from '../../src/executors/index.js';
import { makeToolDefinition } from './support/tool-definitions.js';

let root: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'hldp-execute-')));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const script = (text: string, overrides: Partial<ToolDefinition> = {}) => makeToolDefinition({ executor: 'shell', shell: { script: text }, ...overrides });

describe('execute', () => {
  describe('when the context holds secrets and the tool prints them', () => {
    const context = (): ExecutionContext => ({
      shell: { root },
      gatekeepers: { default: { url: 'http://127.0.0.1:1', token: 'gatekeeper-token-123' } },
      apis: { default: { url: 'http://127.0.0.1:1', token: 'api-token-4567', headers: { 'X-Api-Key': 'header-key-89' } } },
      forgejo: { url: 'http://127.0.0.1:1', token: 'forgejo-pat-0000' },
    });

    it('returns output, stderr and error with every secret replaced by [REDACTED]', async () => {
      const printed = 'gatekeeper-token-123 api-token-4567 header-key-89 forgejo-pat-0000';
      const result = await execute(script(`echo "${printed}"; echo "${printed}" >&2; exit 1`), {}, context());
      const redacted = '[REDACTED] [REDACTED] [REDACTED] [REDACTED]\n';
      expect(result).toMatchObject({ ok: false, output: redacted, stderr: redacted, error: redacted });
    });

    it('returns short values untouched, since they are not tokens', async () => {
      const result = await execute(script('echo abc'), {}, { shell: { root }, apis: { default: { url: 'x', token: 'abc' } } });
      expect(result.output).toBe('abc\n');
    });
  });

  describe('when the caller has already given up', () => {
    it('returns CANCELLED and runs nothing', async () => {
      const result = await execute(script(`touch ${join(root, 'ran-after-cancel')}`), {}, { shell: { root }, signal: AbortSignal.abort() });
      expect(result).toMatchObject({ ok: false, code: 'CANCELLED', exit_code: null });
      expect(existsSync(join(root, 'ran-after-cancel'))).toBe(false);
    });
  });

  describe('when the call cannot be built or fails unexpectedly', () => {
    it('returns EXECUTOR_MISCONFIGURED for an executor it does not know', async () => {
      const tool = makeToolDefinition({ executor: 'telepathy' as ToolDefinition['executor'] });
      expect(await execute(tool, {}, {})).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining('shell, gatekeeper, hldp-api, git-forgejo or mcp') });
    });

    it('returns EXECUTOR_MISCONFIGURED when the shell root does not exist', async () => {
      const result = await execute(script('true'), {}, { shell: { root: join(root, 'missing') } });
      expect(result).toMatchObject({ ok: false, code: 'EXECUTOR_MISCONFIGURED', error: expect.stringContaining('does not exist') });
    });

    it('returns INTERNAL_ERROR instead of throwing when something throws inside', async () => {
      const params = {
        get cmd(): string {
          throw new Error('params exploded');
        },
      };
      const result = await execute(script('true'), params, { shell: { root } });
      expect(result).toMatchObject({ ok: false, code: 'INTERNAL_ERROR', error: expect.stringContaining('params exploded') });
    });

    it('returns INTERNAL_ERROR for an impossible cap, running nothing', async () => {
      const result = await execute(script(`touch ${join(root, 'ran')}`, { constraints: { timeout_ms: 1000, max_output_bytes: 0, require_confirm: false } }), {}, { shell: { root } });
      expect(result).toMatchObject({ ok: false, code: 'INTERNAL_ERROR', error: expect.stringContaining('output capacity') });
      expect(existsSync(join(root, 'ran'))).toBe(false);
    });
  });
});
