// Review userW, as an operator and a tool author hit them with real `hldp` processes and real HTTP servers:
// - W9: the README's deployment config (gatekeeper, API, Forgejo and MCP secrets from the environment) stopped
//   `receipts`, `receipts verify`, `scan`, `list` and `validate` (exit 2) in a shell without those secrets.
// - W2: `validate --config` and serve's start said nothing of a `gatekeeper.target` or `http.api` the config lacks.
// - W8: "set apis.echo.url … or the environment variable HLDP_API_ECHO_URL": the variable alone did nothing.
// - W6 (LOW): an hldp-api 302 was "HTTP 302: " and nothing else; a gatekeeper's 401 named no setting to check.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');
const servers: Server[] = [];
afterEach(async () => {
  while (servers.length) await new Promise((resolve) => servers.pop()!.close(resolve));
});

/** A real HTTP server on 127.0.0.1 answering every request with `answer`; resolves to its base URL. */
async function httpServer(answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(answer);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const API_TOOL = (api: string) => makeToolYaml('fetch', { method: 'get', executor: 'hldp-api', params_schema: '{ p: { type: string, required: true } }', http: `{ method: GET, path: "/{p}", api: ${api} }` });
const GATEKEEPER_TOOL = (target: string) => makeToolYaml('remote-exec', { gatekeeper: `{ target: ${target} }` });

/** A registry with the two tools, and a config file of `lines` serving it. */
async function deployment(tools: { api: string; target: string }, lines: string[]): Promise<{ repo: string; config: string }> {
  const repo = await initRepository(join(home.path, 'reg'));
  await commitFiles(repo, { 'tools/fetch/TOOL.hdlp': API_TOOL(tools.api), 'tools/remote-exec/TOOL.hdlp': GATEKEEPER_TOOL(tools.target) });
  const config = join(home.path, 'hldp.yaml');
  await writeFile(config, [`repository: { source: ${repo} }`, ...lines, ''].join('\n'));
  return { repo, config };
}

// the README's deployment pattern: every secret in the environment, none in the file
const README_SECRETS = [
  'gatekeepers:',
  '  default:   { url: "http://127.0.0.1:9" }     # token: HLDP_GATEKEEPER_DEFAULT_TOKEN',
  '  bs-gz-006: { url: "http://127.0.0.1:9" }     # token: HLDP_GATEKEEPER_BS_GZ_006_TOKEN',
  'apis:',
  '  echo: {}                                      # url: HLDP_API_ECHO_URL',
  'forgejo: { url: "https://forgejo.example", repo: zhuyuan/workspace }   # token: HLDP_FORGEJO_TOKEN',
  'mcp_servers:',
  '  github: { command: npx, args: [-y, server-github], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" } }',
];

describe("the operator's read-only commands in a shell without the deployment's secrets (W9)", () => {
  it('read receipts, verify them, scan, list and validate', async () => {
    const { repo, config } = await deployment({ api: 'echo', target: 'bs-gz-006' }, README_SECRETS);
    const runs = await Promise.all(
      [['receipts'], ['receipts', 'verify'], ['scan'], ['list'], ['validate', repo]].map((args) => runCli([...args, '--config', config], { env: home.env })),
    );
    for (const run of runs) {
      expect(run.stderr).not.toMatch(/needs (both url and token|a url)|is not set in the gateway's environment/);
      expect(run.code, run.stderr).toBe(0);
    }
  });

  it('still need them where they are used: serve names the setting, import names the variable', async () => {
    const { config } = await deployment({ api: 'echo', target: 'bs-gz-006' }, README_SECRETS);
    const serve = await runCli(['serve', '--config', config, '--port', '0'], { env: home.env });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('gatekeepers.default: needs both url and token (or HLDP_GATEKEEPER_DEFAULT_URL and HLDP_GATEKEEPER_DEFAULT_TOKEN)');
    const imported = await runCli(['import', 'mcp', '--server', 'github', '--out', join(home.path, 'out'), '--config', config], { env: home.env });
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain('mcp_servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN: refers to ${GITHUB_TOKEN}, which is not set');
  });
});

describe('a definition naming a target the config lacks (W2)', () => {
  const config = ['apis: { flaky: { url: "http://127.0.0.1:9" } }', 'gatekeepers: { remote: { url: "http://127.0.0.1:9", token: "0123456789abcdef0123" } }'];

  it('is a warning of validate --config at the field, naming what is configured and the near name', async () => {
    const { repo, config: file } = await deployment({ api: 'flakey', target: 'remot' }, config);
    const run = await runCli(['validate', repo, '--config', file], { env: home.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/tools\/fetch\/TOOL\.hdlp:\d+:\d+: warning: http\.api 'flakey' names no API of the gateway's config \(configured: flaky, default\); did you mean 'flaky'\?/);
    expect(run.stdout).toMatch(/tools\/remote-exec\/TOOL\.hdlp:\d+:\d+: warning: gatekeeper\.target 'remot' names no gatekeeper of the gateway's config \(configured: remote, default\); did you mean 'remote'\?/);
    const clean = await deployment({ api: 'flaky', target: 'remote' }, config);
    expect((await runCli(['validate', clean.repo, '--config', clean.config], { env: home.env })).stdout).not.toContain('names no');
  });

  it('ends its first sentence before the next when no configured name is near (review userZ5, F8)', async () => {
    const { repo, config: file } = await deployment({ api: 'flaky', target: 'prod' }, config);
    const run = await runCli(['validate', repo, '--config', file], { env: home.env });
    expect(run.stdout).toContain("warning: gatekeeper.target 'prod' names no gatekeeper of the gateway's config (configured: remote, default). Every call of this tool fails");
  });
});

describe("an hldp-api tool's errors (W8, W6)", () => {
  it('says to declare an API the file lacks, since its variable alone is not read; declared, the variable is its url', async () => {
    const api = await httpServer((_request, response) => response.end('pong'));
    const { config } = await deployment({ api: 'echo', target: 'default' }, []);
    const alone = await runCli(['call', 'fetch', '--params', '{"p":"x"}', '--config', config], { env: { ...home.env, HLDP_API_ECHO_URL: api } });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain("no API 'echo' is configured: declare it in the gateway config file (apis: {echo: {}} at least), its url there (apis.echo.url) or in HLDP_API_ECHO_URL");
    await writeFile(config, `repository: { source: ${join(home.path, 'reg')} }\napis: { echo: {} }\n`);
    const declared = await runCli(['call', 'fetch', '--params', '{"p":"x"}', '--config', config], { env: { ...home.env, HLDP_API_ECHO_URL: api } });
    expect(declared.stdout).toContain('pong');
    expect(declared.code, declared.stderr).toBe(0);
  });

  it('says where a redirect pointed, its query values redacted, and that it is not followed', async () => {
    const api = await httpServer((_request, response) => {
      response.writeHead(302, { location: '/elsewhere?sig=abc123' });
      response.end();
    });
    const { config } = await deployment({ api: 'echo', target: 'default' }, [`apis: { echo: { url: "${api}" } }`]);
    const run = await runCli(['call', 'fetch', '--params', '{"p":"x"}', '--config', config], { env: home.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`HTTP 302: a redirect (Location: ${api}/elsewhere?sig=[REDACTED]), which hldp-api does not follow`);
    expect(run.stderr).not.toContain('abc123');
  });
});

describe("a gatekeeper's 401 (W6)", () => {
  it('names the setting and the variable whose token this gateway sent', async () => {
    const gatekeeper = await httpServer((_request, response) => {
      response.writeHead(401, { 'content-type': 'text/plain' });
      response.end('send Authorization: Bearer <the gatekeeper token>');
    });
    const { config } = await deployment({ api: 'echo', target: 'bs-gz-006' }, [`gatekeepers: { bs-gz-006: { url: "${gatekeeper}", token: "not-the-gatekeepers-token" } }`]);
    const run = await runCli(['call', 'remote-exec', '--config', config], { env: home.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("gatekeeper 'bs-gz-006' answered HTTP 401: send Authorization: Bearer <the gatekeeper token> (this gateway sent gatekeepers.bs-gz-006.token or HLDP_GATEKEEPER_BS_GZ_006_TOKEN: check it against that gatekeeper's HLDP_GATEKEEPER_TOKEN)");
  });
});
