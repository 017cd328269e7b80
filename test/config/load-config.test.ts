import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { configFiles } from './support.js';

const configFile = configFiles();

describe('loadConfig', () => {
  describe('when secrets come from the environment', () => {
    it('completes every target and token the file declares, the environment winning', async () => {
      const file = await configFile(
        ['repository: { source: "https://forgejo.example/a/tools.git", token: from-file-0001 }', 'gatekeepers:', '  bs-gz-006: { url: "http://bs-gz-006:3910" }', 'apis:', '  default: { url: "http://api.example" }', 'forgejo: { url: "https://forgejo.example", repo: a/tools }', ''].join('\n'),
      );
      const config = loadConfig({
        file,
        env: {
          HLDP_REPO_TOKEN: 'repo-token-from-env',
          HLDP_GATEKEEPER_BS_GZ_006_TOKEN: 'gatekeeper-token-from-env',
          HLDP_API_DEFAULT_TOKEN: 'api-token-from-env',
          HLDP_FORGEJO_TOKEN: 'forgejo-token-from-env',
          HLDP_WEBHOOK_SECRET: 'webhook-secret-from-env',
          HLDP_API_TOKEN: 'api-token-0123456789abcdef',
        },
      });
      expect(config.repository).toMatchObject({ source: 'https://forgejo.example/a/tools.git', token: 'repo-token-from-env' });
      expect(config.gatekeepers['bs-gz-006']).toEqual({ url: 'http://bs-gz-006:3910', token: 'gatekeeper-token-from-env' });
      expect(config.apis.default).toMatchObject({ url: 'http://api.example', token: 'api-token-from-env' });
      expect(config.forgejo).toMatchObject({ url: 'https://forgejo.example', token: 'forgejo-token-from-env', repo: 'a/tools' });
      expect(config).toMatchObject({ webhookSecret: 'webhook-secret-from-env', apiToken: 'api-token-0123456789abcdef' });
    });

    it('takes the default gatekeeper from the environment alone', () => {
      const config = loadConfig({ env: { HLDP_GATEKEEPER_DEFAULT_URL: 'http://127.0.0.1:3910', HLDP_GATEKEEPER_DEFAULT_TOKEN: 'gatekeeper-token-0123456789' } });
      expect(config.gatekeepers.default).toEqual({ url: 'http://127.0.0.1:3910', token: 'gatekeeper-token-0123456789' });
    });
  });

  describe('when a matcher model is configured', () => {
    it('reads it from the file, the environment winning, and is off without one', async () => {
      const file = await configFile('matcher:\n  model: { url: "http://127.0.0.1:8080/v1", model: qwen2.5-0.5b, timeout_ms: 1500, budget_chars: 4000 }\n');
      expect(loadConfig({ file, env: { HLDP_MATCHER_MODEL_TOKEN: 'model-token-from-env' } }).matcherModel).toEqual({
        url: 'http://127.0.0.1:8080/v1', model: 'qwen2.5-0.5b', token: 'model-token-from-env', timeoutMs: 1500, budgetChars: 4000,
      });
      expect(loadConfig({ env: {} }).matcherModel).toBeUndefined();
    });

    it('reads the model stage\'s rate per principal and its concurrency cap', async () => {
      const file = await configFile('matcher:\n  model: { url: "http://127.0.0.1:8080/v1", model: m, per_principal_per_minute: 5, max_concurrent: 2 }\n');
      expect(loadConfig({ file, env: {} }).matcherModel).toMatchObject({ perPrincipalPerMinute: 5, maxConcurrent: 2 });
    });
  });

  describe('when principals are configured', () => {
    it('keeps only digests of their tokens, from the file or the environment, and adds api_token as admin', async () => {
      const file = await configFile('principals:\n  bot: { roles: [agent], tools: [git-ops] }\n  alice: { roles: [approver], token_sha256: 5E884898DA28047151D0E56F8DC6292773603D0D6AABBDD62A11EF721D1542D8 }\n');
      const config = loadConfig({ file, env: { HLDP_PRINCIPAL_BOT_TOKEN: 'bot-token-0123456789', HLDP_API_TOKEN: 'api-token-0123456789abcdef' } });
      expect(config.principals).toEqual([
        { name: 'bot', roles: ['agent'], tokenSha256: createHash('sha256').update('bot-token-0123456789').digest('hex'), tools: ['git-ops'] },
        { name: 'alice', roles: ['approver'], tokenSha256: '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8' },
        { name: 'admin', roles: ['admin'], tokenSha256: createHash('sha256').update('api-token-0123456789abcdef').digest('hex') },
      ]);
      expect(JSON.stringify(config.principals)).not.toContain('bot-token-0123456789');
    });
  });

  describe('when something is wrong', () => {
    it.each([
      ['a gatekeeper without a token', 'gatekeepers:\n  bs-gz-006: { url: "http://x:3910" }\n', {}, /gatekeepers\.bs-gz-006: needs both url and token \(or HLDP_GATEKEEPER_BS_GZ_006_URL and HLDP_GATEKEEPER_BS_GZ_006_TOKEN\)/],
      ['forgejo without a token', 'forgejo: { url: "https://f.example" }\n', {}, /forgejo: needs both url and token/],
      ['an unknown key', 'listen:\n  prot: 80\n', {}, /brush-holder\.yaml:2:3: .*'listen\.prot'/],
      ['a short webhook secret in the file', 'webhook_secret: short\n', {}, /brush-holder\.yaml:1:17: .*at least 8 characters/],
      ['a port that is not a number', '', { HLDP_PORT: 'eighty' }, /HLDP_PORT: must be an integer from 0 to 65535/],
      ['a sandbox mode that is none', 'sandbox: sometimes\n', {}, /brush-holder\.yaml:1:10: .*'sandbox' must be one of: auto, required, off/],
      ['a sandbox ceiling memory that is no size', 'sandbox:\n  ceiling: { memory: lots }\n', {}, /sandbox\.ceiling\.memory: must be a size of at least 16 MiB .*got 'lots'/],
      ['a sandbox ceiling with an unknown limit', 'sandbox:\n  ceiling: { threads: 4 }\n', {}, /brush-holder\.yaml:2:\d+: .*threads/],
      ['a sandbox mode in the environment that is none', '', { HLDP_SANDBOX: 'maybe' }, /HLDP_SANDBOX: must be one of auto, required, off, got 'maybe'/],
      ['a matcher model without a model name', 'matcher:\n  model: { url: "http://127.0.0.1:8080/v1" }\n', {}, /brush-holder\.yaml:2:10: missing required field 'matcher\.model\.model'/],
      ['a matcher model url that is not http', 'matcher:\n  model: { url: "file:///tmp/x", model: m }\n', {}, /brush-holder\.yaml:2:\d+: .*http\(s\) URL/],
      ['a matcher model named only in the environment', '', { HLDP_MATCHER_MODEL: 'qwen' }, /matcher\.model: needs both url and model/],
      ['a matcher model timeout under 100 ms', '', { HLDP_MATCHER_MODEL_URL: 'http://127.0.0.1:1/v1', HLDP_MATCHER_MODEL: 'm', HLDP_MATCHER_MODEL_TIMEOUT_MS: '5' }, /at least 100 ms/],
      ['a principal without a token', 'principals:\n  bot: { roles: [agent] }\n', {}, /principals\.bot: needs a token: token_sha256 .* or the token in HLDP_PRINCIPAL_BOT_TOKEN/],
      ['a principal token in clear in the file', 'principals:\n  bot: { roles: [agent], token: bot-token-0123456789 }\n', {}, /brush-holder\.yaml:2:26: .*unknown field 'principals\.bot\.token'/],
      ['a token_sha256 that is not a digest', 'principals:\n  bot: { roles: [agent], token_sha256: bot-token-0123456789 }\n', {}, /brush-holder\.yaml:2:40: .*64 hex digits/],
      ['a short principal token', 'principals:\n  bot: { roles: [agent] }\n', { HLDP_PRINCIPAL_BOT_TOKEN: 'short' }, /HLDP_PRINCIPAL_BOT_TOKEN: must be at least 16 characters/],
      ['an unknown role', 'principals:\n  bot: { roles: [master] }\n', {}, /brush-holder\.yaml:2:18: .*must be one of: agent, trusted, approver, admin/],
      ['two principals with one token', 'principals:\n  a: { roles: [agent] }\n  b: { roles: [agent] }\n', { HLDP_PRINCIPAL_A_TOKEN: 'same-token-0123456789', HLDP_PRINCIPAL_B_TOKEN: 'same-token-0123456789' }, /principals\.b: has the same token as 'a'/],
      ['a principal named local', 'principals:\n  local: { roles: [agent] }\n', { HLDP_PRINCIPAL_LOCAL_TOKEN: 'local-token-0123456789' }, /principals\.local: 'local' is the operator at this machine/],
      ['a principal named admin beside api_token', 'principals:\n  admin: { roles: [agent] }\n', { HLDP_PRINCIPAL_ADMIN_TOKEN: 'admin-token-0123456789', HLDP_API_TOKEN: 'api-token-0123456789abcdef' }, /principals\.admin: 'admin' is the principal api_token stands for/],
    ])('stops with the key and the reason for %s', async (_case, text, env, message) => {
      const file = await configFile(text);
      expect(() => loadConfig({ file, env })).toThrow(message);
    });
  });

  describe('when it names a sandbox mode', () => {
    it('defaults to auto, reads the file, and lets HLDP_SANDBOX win', async () => {
      expect(loadConfig({ env: {} }).sandbox).toBe('auto');
      const file = await configFile('sandbox: required\n');
      expect(loadConfig({ file, env: {} }).sandbox).toBe('required');
      expect(loadConfig({ file, env: { HLDP_SANDBOX: 'off' } }).sandbox).toBe('off');
    });

    it('reads the mode, the paths to hide and the ceiling from a sandbox object, paths from the file’s folder', async () => {
      const file = await configFile('sandbox:\n  mode: required\n  hide: [/etc/hldp.env, secrets]\n  ceiling: { network: false, memory: 512MiB, cpu_seconds: 30, processes: 64, file_size: 1048576, writable_roots: [/srv/shared, scratch] }\n');
      const folder = file.slice(0, file.lastIndexOf('/'));
      const config = loadConfig({ file, env: {} });
      expect(config).toMatchObject({ sandbox: 'required', sandboxHide: ['/etc/hldp.env', `${folder}/secrets`] });
      expect(config.sandboxCeiling).toEqual({ network: false, limits: { memory: 512 * 2 ** 20, cpu_seconds: 30, processes: 64, file_size: 1048576 }, writableRoots: ['/srv/shared', `${folder}/scratch`] });
      expect(loadConfig({ file, env: { HLDP_SANDBOX: 'auto' } }).sandbox).toBe('auto');
      // none: no ceiling, nothing more hidden
      expect(loadConfig({ env: {} })).toMatchObject({ sandboxHide: [] });
      expect(loadConfig({ env: {} }).sandboxCeiling).toBeUndefined();
    });
  });
});
