import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { hashToken } from '../../src/policy/index.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { createTestDatabase } from '../helpers/postgres-suite.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';

/** Each test principal's bearer token (at least 16 characters, as the config asks). */
export const TOKENS = {
  bot: 'bot-token-0123456789abcdef',
  lead: 'lead-token-0123456789abcdef',
  alice: 'alice-token-0123456789abcdef',
  bob: 'bob-token-0123456789abcdef',
  admin: 'admin-token-0123456789abcdef',
} as const;

/** The principal names the tests use. */
export type Who = keyof typeof TOKENS;

/**
 * The principals of the tests: bot (an untrusted agent with a base list), lead (a trusted agent whose base list
 * its toolsets replace), alice and bob (approvers, not agents), and admin (api_token). Tokens reach the gateway
 * both ways the config allows: lead's and bob's as token_sha256 in the file, the others in the environment.
 */
export const PRINCIPALS_YAML = `principals:
  bot: { roles: [agent], tools: [git-ops, file-read, file-write, http-request, shell-exec] }
  lead: { roles: [agent, trusted], tools: [git-ops], token_sha256: ${hashToken(TOKENS.lead)} }
  alice: { roles: [approver] }
  bob: { roles: [approver], token_sha256: ${hashToken(TOKENS.bob)} }
`;

/** The environment that completes PRINCIPALS_YAML (tokens of bot and alice) and sets api_token (admin). */
export const PRINCIPAL_ENV: NodeJS.ProcessEnv = {
  HLDP_PRINCIPAL_BOT_TOKEN: TOKENS.bot,
  HLDP_PRINCIPAL_ALICE_TOKEN: TOKENS.alice,
  HLDP_API_TOKEN: TOKENS.admin,
};

/** A `shell` tool that echoes its one param `text` (optionally with an access block and other fields). */
export function echoTool(name: string, extra = ''): string {
  return [
    `name: ${name}`, `display: ${name}`, `intent: echo a text (${name})`, 'method: run', 'executor: shell',
    'params_schema:', '  text: { type: string, required: true }',
    'shell: { argv: [echo, "{text}"] }', 'author: TEST-001', 'created: 2026-12-01', `why: tests need ${name}`, extra,
  ].join('\n');
}

/** The policy most approval tests run under: every file-write waits for a person with the approver role. */
export const WRITES_NEED_AN_APPROVER: Record<string, string> = {
  'policies/writes.hdlp': ['name: writes', 'author: TEST-001', 'why: a person reviews every write', 'approval:', '  - tools: [file-write]', '    decision: approve', '    approvers: { roles: [approver] }'].join('\n'),
};

/** A git repository holding the starter registry (native-repo) and `files` on top, committed. */
export async function policyRepository(files: Record<string, string>): Promise<{ repo: string; temp: { path: string; cleanup: () => Promise<void> } }> {
  const temp = await makeTempDir('hldp-policy-');
  const repo = join(temp.path, 'repo');
  await initRepository(repo);
  await cp('native-repo', repo, { recursive: true });
  await commitFiles(repo, files, 'registry with policies');
  return { repo, temp };
}

/** A real `hldp serve` process over `repo` with the test principals (or `principals` instead), and `config` appended to the config file. */
export async function startGateway(
  repo: string,
  temp: string,
  options: { config?: string; env?: NodeJS.ProcessEnv; logLevel?: string; principals?: string } = {},
): Promise<{ url: string; service: ServiceProcess; env: NodeJS.ProcessEnv; configFile: string }> {
  const configFile = join(temp, `config-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(configFile, `${options.principals ?? PRINCIPALS_YAML}${options.config ?? ''}`);
  const env: NodeJS.ProcessEnv = {
    HLDP_CACHE_DIR: join(temp, 'cache'), HLDP_DATA_DIR: join(temp, 'data'), HLDP_WORKSPACE: join(temp, 'workspace'),
    HLDP_POLL_INTERVAL_MS: '600000', HLDP_LOG_LEVEL: options.logLevel ?? 'info', ...PRINCIPAL_ENV, ...options.env,
  };
  await mkdir(join(temp, 'workspace'), { recursive: true });
  const service = await spawnService(['serve', '--port', '0', '--repo', repo, '--config', configFile], env, / at (http:\/\/[\d.:]+)\n/);
  return { url: service.url, service, env, configFile };
}

/** A policy test's `hldp serve` (startGateway) over its own policyRepository, and the one call that ends both. */
export interface PolicyGateway {
  url: string;
  service: ServiceProcess;
  env: NodeJS.ProcessEnv;
  configFile: string;
  /** the registry's git repository, for commits while the gateway runs */
  repo: string;
  /** the temporary folder holding the repository, the config, and the gateway's cache, data and workspace */
  folder: string;
  /** stops the gateway, then removes its folder */
  stop(): Promise<void>;
}

/** A real `hldp serve` (options as startGateway's) over a new policyRepository holding `files`; its folder is removed if it does not start. */
export async function startPolicyGateway(files: Record<string, string>, options: Parameters<typeof startGateway>[2] = {}): Promise<PolicyGateway> {
  const { repo, temp } = await policyRepository(files);
  try {
    const started = await startGateway(repo, temp.path, options);
    const stop = async (): Promise<void> => {
      await started.service.stop();
      await temp.cleanup();
    };
    return { ...started, repo, folder: temp.path, stop };
  } catch (error) {
    await temp.cleanup();
    throw error;
  }
}

/** What `deployOnOneStore` gives the function that starts a deployment's instances. */
export interface OneStore {
  /** the registry's git repository (a policyRepository) */
  repo: string;
  /** the temporary folder everything lives in, removed at the stop */
  folder: string;
  /** the environment that puts an instance on the shared store */
  env: NodeJS.ProcessEnv;
  /** the SQLite file the instances share (SQLite only) */
  sqlite?: string;
  /** the PostgreSQL database's URL (PostgreSQL only) */
  postgres?: string;
  /** a real `hldp serve` (startGateway, at log level warn) in a folder `name` of its own, on the shared store: over `repo` unless given another, stopped with the deployment */
  start(name: string, options?: { repo?: string; config?: string; principals?: string; env?: NodeJS.ProcessEnv }): Promise<{ url: string; service: ServiceProcess }>;
  /** runs `stop` when the deployment stops, before what was added earlier */
  onStop(stop: () => Promise<unknown>): void;
}

/**
 * Several `hldp serve` sharing one store — SQLite in one data folder, or a PostgreSQL database of their own — over a
 * policyRepository holding `files`: `build` starts them (the first alone: it sets the store up) and says what the
 * test needs of them; `stop` stops everything in reverse order, as does a `build` that fails.
 */
export async function deployOnOneStore<T>(store: 'sqlite' | 'postgres', files: Record<string, string>, build: (on: OneStore) => Promise<T>): Promise<T & { stop(): Promise<void> }> {
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async (): Promise<void> => {
    while (stops.length) await stops.pop()!().catch(() => undefined);
  };
  try {
    const { repo, temp } = await policyRepository(files);
    stops.push(() => temp.cleanup());
    const shared = join(temp.path, 'shared-data');
    let on: Pick<OneStore, 'env' | 'sqlite' | 'postgres'> = { env: { HLDP_DATA_DIR: shared }, sqlite: join(shared, 'receipts.db') };
    if (store === 'postgres') {
      const database = await createTestDatabase();
      stops.push(() => database.drop());
      on = { env: { HLDP_STORE_URL: database.url }, postgres: database.url };
    }
    const start: OneStore['start'] = async (name, options = {}) => {
      const folder = join(temp.path, name);
      await mkdir(folder);
      const { config, principals } = options;
      const started = await startGateway(options.repo ?? repo, folder, { ...(config === undefined ? {} : { config }), ...(principals === undefined ? {} : { principals }), logLevel: 'warn', env: { ...on.env, ...options.env } });
      stops.push(() => started.service.stop());
      return { url: started.url, service: started.service };
    };
    const built = await build({ repo, folder: temp.path, ...on, start, onStop: (next) => stops.push(next) });
    return { ...built, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits at `url` (as bot, the caller) for request `id`'s receipt: the answer of `GET /v1/approvals/:id?wait=60`, asked up to three times. */
export async function receiptOf(url: string, id: string): Promise<any> {
  let waited = await api(url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
  for (let attempt = 0; attempt < 2 && waited.body?.receipt === null; attempt += 1) waited = await api(url, 'GET', `/v1/approvals/${id}?wait=60`, { who: 'bot' });
  expect(waited.body?.receipt, JSON.stringify(waited.body)).toBeTruthy();
  return waited.body;
}

/** A policy gateway with no policy in which bot has read a file of 1,000,001 bytes `count` times: a store of large receipts, each output whole. */
export async function startGatewayWithLargeReceipts(count: number): Promise<PolicyGateway> {
  const gateway = await startPolicyGateway({});
  try {
    await writeFile(join(gateway.folder, 'workspace', 'big.txt'), `${'0123456789abcdef'.repeat(62_500)}\n`);
    for (let index = 0; index < count; index += 1) {
      const call = await api(gateway.url, 'POST', '/v1/call', { who: 'bot', body: { tool: 'file-read', params: { path: 'big.txt' } } });
      if (call.body?.ok !== true) throw new Error(`bot's read of big.txt did not run: ${call.status} ${JSON.stringify(call.body).slice(0, 500)}`);
    }
    return gateway;
  } catch (error) {
    await gateway.stop();
    throw error;
  }
}

/** A JSON request as principal `who` (no Authorization header when undefined). */
export async function api(url: string, method: string, path: string, options: { who?: Who; token?: string; body?: unknown; session?: string } = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const token = options.token ?? (options.who ? TOKENS[options.who] : undefined);
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(options.session ? { 'X-HLDP-Session': options.session } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** The official MCP SDK client, connected to `/mcp` as principal `who` (capabilities as given, e.g. elicitation). */
export async function mcpClient(url: string, who: Who, options: { toolsets?: string; capabilities?: ClientOptions['capabilities'] } = {}): Promise<Client> {
  const client = new Client({ name: `policy-test-${who}`, version: '0.0.0' }, options.capabilities ? { capabilities: options.capabilities } : {});
  const endpoint = new URL(`${url}/mcp${options.toolsets ? `?toolsets=${options.toolsets}` : ''}`);
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${TOKENS[who]}` } } }));
  return client;
}

/** The text of a tool result's content blocks, joined. */
export function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
}

// show-text, which first sleeps `pause` seconds when given (a run that spans several of the other instances' sweeps)
const showText = (pause?: number): string => [
  'name: show-text', 'display: show-text', 'intent: print the text it is given', 'method: run', 'executor: shell',
  'params_schema:', '  text: { type: string, required: true }',
  `shell: { script: '${pause === undefined ? '' : `sleep ${pause}; `}printf "%s\\n" "$HLDP_PARAM_TEXT"' }`, 'author: TEST-001', 'created: 2026-12-06', 'why: tests need a shell tool an approver holds',
].join('\n');

const HELD = ['name: held', 'author: TEST-001', 'why: a person looks at show-text first', 'approval:', '  - tools: [show-text]', '    decision: approve', '    approvers: { roles: [approver] }'].join('\n');

const SHOW_TEXT_PRINCIPALS = PRINCIPALS_YAML.replace('shell-exec]', 'shell-exec, show-text]');

/** One of the instances `heldShowText` starts: its cache folder's name, its config, and its store's variables. */
export interface InstanceOptions {
  name: string;
  config: string;
  /** the store: HLDP_DATA_DIR (SQLite) or HLDP_STORE_URL (PostgreSQL) */
  store: NodeJS.ProcessEnv;
  /** 0 (the default): any free port */
  port?: number;
  /** node's own options (`--import` of a module run first) */
  node?: string[];
}

/**
 * For tests of instances on one store: a registry where show-text (prints its text) is held for an approver, and two
 * configs with the test principals (show-text allowed): `before`, and `after` with a setting more (a variable for
 * shell tools, as an operator adds one), so a request filed under one is run only by an instance with the same.
 * `expiresInMs`: the rule's `expires_in_ms`. `serve` starts a real `hldp serve` over it, one after another (the first sets the store up); the caller stops it.
 */
export async function heldShowText(options: { pause?: number; expiresInMs?: number } = {}): Promise<{ repo: string; temp: { path: string; cleanup: () => Promise<void> }; before: string; after: string; serve(options: InstanceOptions): Promise<ServiceProcess> }> {
  const held = options.expiresInMs === undefined ? HELD : `${HELD}\n    expires_in_ms: ${options.expiresInMs}`;
  const { repo, temp } = await policyRepository({ 'policies/held.hdlp': held, 'tools/show-text/TOOL.hdlp': showText(options.pause) });
  const before = join(temp.path, 'before.yaml');
  const after = join(temp.path, 'after.yaml');
  await writeFile(before, SHOW_TEXT_PRINCIPALS);
  await writeFile(after, `${SHOW_TEXT_PRINCIPALS}shell:\n  inherit_env: [HLDP_TEST_KEY]\n`);
  await mkdir(join(temp.path, 'workspace'));
  const shared = { HLDP_POLL_INTERVAL_MS: '600000', HLDP_LOG_LEVEL: 'warn', HLDP_TEST_KEY: 'key-5e1d', HLDP_WORKSPACE: join(temp.path, 'workspace'), ...PRINCIPAL_ENV };
  const serve = ({ name, config, store, port = 0, node = [] }: InstanceOptions): Promise<ServiceProcess> =>
    spawnService(['serve', '--port', String(port), '--repo', repo, '--config', config], { ...shared, ...store, HLDP_CACHE_DIR: join(temp.path, name, 'cache') }, / at (http:\/\/[\d.:]+)\n/, node);
  return { repo, temp, before, after, serve };
}
