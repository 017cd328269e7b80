import { readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { ExecutionResult, ToolDefinition } from '../../core/index.js';
import { fillTemplate, redactUrl, secretsOf, unconfiguredTarget, type ApiTarget, type ExecutionContext } from '../../executors/index.js';
import { startGatekeeper, type RunningGatekeeper } from '../../gatekeeper/index.js';
import { McpServerPool } from '../../mcp-servers/index.js';
import { createSandbox, type Sandbox, type SandboxStatus } from '../../sandbox/index.js';
import { trustedCacheDir } from '../../scanner/index.js';
import { OWN_FOLDERS, PACKAGE_ROOT, type GatewayConfig } from '../../config/index.js';
import { sandboxWarnings, workspaceWarnings } from './sandbox-warnings.js';

// how the gateway introduces itself to the MCP servers it calls
const VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Where a call's relative paths land: its root's names, and a shell tool's own working directory (see {@link ExecutionTargets.pathPlace}). */
export interface PathPlace {
  roots: readonly string[];
  cwd?: string;
}

/** The executors' context for this gateway, with the embedded gatekeeper started the first time a tool needs it. */
export class ExecutionTargets {
  private embedded: Promise<RunningGatekeeper> | undefined;
  private selfApi: ApiTarget | undefined;
  private sandbox: Promise<Sandbox> | undefined;
  private probed: Sandbox | undefined;
  private workspaceRoots: readonly string[] | undefined;
  /** the configured MCP servers; each starts on the first call of one of its tools, stdio ones inside the sandbox */
  readonly mcpServers: McpServerPool;

  // secrets of the configuration that the executors do not use themselves, but no result may show
  private readonly otherSecrets: string[];

  // the principals' tokens seen in clear as they authenticated (token_sha256 ones included), asked at each use
  private learnedSecrets: () => readonly string[] = () => [];

  constructor(
    private readonly config: GatewayConfig,
    private readonly logger?: Logger,
    // what the sandbox did to the workspace, said here rather than to the logger (the CLI's stderr)
    private readonly onWorkspaceNotice?: (message: string) => void,
  ) {
    const { repository, apiToken, webhookSecret, store, matcherModel } = config;
    // the registry URL's `user:password@` is its credential (remote-address.ts sends it as Basic auth): no answer shows it (review Z15, Z15-1)
    this.otherSecrets = [repository.token, apiToken, webhookSecret, ...passwordsOf(store.url), ...passwordsOf(repository.source), matcherModel?.token, ...config.principalTokens].filter((secret): secret is string => secret !== undefined);
    for (const server of Object.values(config.mcpServers)) this.otherSecrets.push(...server.secrets);
    this.mcpServers = new McpServerPool(config.mcpServers, { workspace: config.workspaceRoot, serversFolder: join(config.dataDir, 'mcp-servers'), sandbox: () => this.sandboxed(), clientInfo: { name: 'brush-holder', version: VERSION }, ...(logger ? { warn: (fields, message) => logger.warn(fields, message) } : {}) });
  }

  /** What the sandbox probe found, once it ran (`sandboxed()`). */
  get sandboxStatus(): SandboxStatus | undefined {
    // read at each ask: a required sandbox that could not run at start may run now
    return this.probed?.status;
  }

  /** Whether `gatekeepers.default` is the embedded one (nothing configured it). */
  get embedsGatekeeper(): boolean {
    return this.config.embeddedGatekeeper.enabled && !this.config.gatekeepers.default;
  }

  /**
   * Where a call's relative paths land, as configured and with symlinks resolved: the workspace for the embedded
   * gatekeeper's methods and for shell tools, with a shell tool's own `cwd` as this call fills it (as the shell
   * executor does: a cwd whose placeholders have no value is the root); no root where the gateway cannot know
   * (another gatekeeper's root, a remote API), and the policy then judges paths it cannot place strictly.
   */
  pathPlace(tool: ToolDefinition, params: Record<string, unknown>): PathPlace {
    const embedded = tool.executor === 'gatekeeper' && (tool.gatekeeper?.target ?? 'default') === 'default' && this.embedsGatekeeper;
    const shell = tool.executor === 'shell';
    if (!embedded && !shell) return { roots: [] };
    this.workspaceRoots ??= rootsOf(this.config.workspaceRoot);
    const template = shell ? tool.shell?.cwd : undefined;
    if (template === undefined) return { roots: this.workspaceRoots };
    const filled = fillTemplate(template, params);
    return { roots: this.workspaceRoots, cwd: filled.ok ? filled.text : '.' };
  }

  /** The context for one call; `needsGatekeeper` starts the embedded gatekeeper if it is the target. */
  async context(needsGatekeeper: boolean, signal?: AbortSignal): Promise<ExecutionContext> {
    const gatekeepers = { ...this.config.gatekeepers };
    if (needsGatekeeper && this.embedsGatekeeper) {
      const running = await this.startEmbedded();
      gatekeepers.default = { url: running.url, token: running.token };
    }
    const sandbox = await this.sandboxed();
    return {
      ...this.targets(),
      shell: { root: this.config.workspaceRoot, inheritEnv: this.config.shell.inheritEnv, sandbox },
      gatekeepers,
      otherSecrets: this.secrets(),
      maxOutputBytes: this.config.maxOutputBytes,
      ...(signal ? { signal } : {}),
    };
  }

  /**
   * Why `tool` cannot run here at all (its executor's target is not configured), as its executor would fail it, or
   * undefined: asked before a confirmation or an approval request is filed (review userZ7 F14). Nothing is started.
   */
  unconfiguredTarget(tool: ToolDefinition, params: Record<string, unknown>): ExecutionResult | undefined {
    // the embedded gatekeeper is `default` once started; only its name counts here, so none is started for the check
    const gatekeepers = this.embedsGatekeeper ? { ...this.config.gatekeepers, default: { url: '', token: '' } } : this.config.gatekeepers;
    return unconfiguredTarget(tool, params, { ...this.targets(), shell: { root: this.config.workspaceRoot }, gatekeepers });
  }

  // what the executors act on, as configured (the shell's sandbox and the embedded gatekeeper aside)
  private targets(): Pick<ExecutionContext, 'apis' | 'forgejo' | 'mcpServers'> {
    return {
      apis: this.selfApi && !this.config.apis.default ? { ...this.config.apis, default: this.selfApi } : this.config.apis,
      // the registry's address without its credentials: the executor needs its host and path alone, and quotes it
      ...(this.config.forgejo ? { forgejo: { ...this.config.forgejo, registry: withoutCredentials(this.config.repository.source) } } : {}),
      mcpServers: this.mcpServers,
    };
  }

  /** The configured secrets, known without probing the sandbox or starting anything: what no request text may carry onwards. */
  configuredSecrets(): string[] {
    return secretsOf({ gatekeepers: this.config.gatekeepers, apis: this.config.apis, ...(this.config.forgejo ? { forgejo: this.config.forgejo } : {}), otherSecrets: this.secrets() });
  }

  /**
   * The configured secrets, each with the setting it is (never its value in the name): what a person deciding a call is
   * told the params hold, where they read `[REDACTED]` (review userZ6 F12).
   */
  secretSettings(): Array<{ setting: string; value: string }> {
    const { repository, apiToken, webhookSecret, store, matcherModel, gatekeepers, apis, forgejo, mcpServers } = this.config;
    const named: Array<{ setting: string; value: string | undefined }> = [
      { setting: 'the repository token', value: repository.token },
      { setting: 'the API token (api_token)', value: apiToken },
      { setting: 'the webhook secret', value: webhookSecret },
      ...passwordsOf(store.url).map((value) => ({ setting: "the store's password", value })),
      ...passwordsOf(repository.source).map((value) => ({ setting: "the password in the registry's URL (repository.source)", value })),
      { setting: "the matcher model's token", value: matcherModel?.token },
      ...this.config.principalTokens.map((value) => ({ setting: "a principal's token", value })),
      ...this.learnedSecrets().map((value) => ({ setting: "a principal's token", value })),
      ...Object.entries(mcpServers).flatMap(([name, server]) => server.secrets.map((value) => ({ setting: `a secret of MCP server '${name}'`, value }))),
      ...Object.entries(gatekeepers).map(([name, target]) => ({ setting: `gatekeeper '${name}''s token`, value: target.token })),
      ...Object.entries(apis).flatMap(([name, api]) => [{ setting: `API '${name}''s token`, value: api.token }, ...Object.values(api.headers ?? {}).map((value) => ({ setting: `a header of API '${name}'`, value }))]),
      { setting: 'the Forgejo token', value: forgejo?.token },
    ];
    return named.filter((entry): entry is { setting: string; value: string } => typeof entry.value === 'string');
  }

  /**
   * Adds secrets learnt while serving (the tokens principals authenticated with) to those no result may show: a
   * principal configured by `token_sha256` has no clear token in the config, so its token is redacted once it was
   * presented to this process, and never before (review J F6).
   */
  learnSecrets(secrets: () => readonly string[]): void {
    this.learnedSecrets = secrets;
  }

  private secrets(): string[] {
    const learned = this.learnedSecrets();
    return learned.length === 0 ? this.otherSecrets : [...this.otherSecrets, ...learned];
  }

  /** Makes this gateway's own HTTP API the `default` API of `hldp-api` tools, unless one is configured. */
  useSelfApi(target: ApiTarget): void {
    this.selfApi = target;
  }

  /** Starts the embedded gatekeeper now (serve does, so that the first call does not wait). */
  startEmbedded(): Promise<RunningGatekeeper> {
    // on 127.0.0.1 with a random token only this process knows
    if (this.embedded) return this.embedded;
    const starting = this.sandboxed().then((sandbox) => startGatekeeper({ host: '127.0.0.1', port: 0, root: this.config.workspaceRoot, rootFrom: 'workspace_root', sandbox }));
    // a start that failed (a workspace not made yet) is tried again by the next call, not remembered for good
    starting.catch(() => {
      if (this.embedded === starting) this.embedded = undefined;
    });
    this.embedded = starting;
    return starting;
  }

  /**
   * The sandbox of this gateway's local tools (shell tools and the embedded gatekeeper's exec), probed once; whatever
   * it cannot enforce here is logged as a warning. The gateway's own files are hidden from tools, its repository read-only.
   */
  sandboxed(): Promise<Sandbox> {
    this.sandbox ??= (async () => {
      const { config } = this;
      const receipts = config.receiptsDb;
      const repository = /^https?:\/\//i.test(config.repository.source) ? [] : [config.repository.source];
      const sandbox = await createSandbox({
        mode: config.sandbox,
        // the cache folder in use too: a private one of this process's when cache_dir was refused (review Z10-2)
        hide: [...new Set([config.cacheDir, trustedCacheDir(config.cacheDir)]), config.dataDir, receipts, `${receipts}-wal`, `${receipts}-shm`, `${receipts}-journal`, ...(config.file ? [config.file] : []), ...config.sandboxHide],
        // no tool may register another, nor change the code of the gateway that runs it
        protect: [...repository, ...OWN_FOLDERS],
        // none configured is still a ceiling: a definition may not ask for unix sockets unless one allows them
        ceiling: config.sandboxCeiling ?? {},
        ...(config.sandboxRunAs !== undefined ? { runAs: config.sandboxRunAs } : {}),
        onNotice: this.onWorkspaceNotice ?? ((message) => this.logger?.warn({ sandbox: 'run_as' }, message)),
        onStatusChange: (status) => this.logger?.warn({ sandbox: status.sandbox }, `sandbox: ${status.sandbox} after probing bubblewrap again: local tools run ${status.sandbox === 'on' ? 'in the sandbox' : 'unisolated'} from now on`),
      });
      for (const warning of sandboxWarnings(sandbox.status)) this.logger?.warn({ sandbox: sandbox.status.sandbox }, warning);
      for (const warning of workspaceWarnings(config.workspaceRoot, PACKAGE_ROOT, undefined, sandbox.status.runAs)) this.logger?.warn({ workspace: config.workspaceRoot }, warning);
      this.probed = sandbox;
      return sandbox;
    })();
    return this.sandbox;
  }

  /** Stops the embedded gatekeeper, if it was started, every MCP server, and the sandbox's waiting launchers. */
  async close(): Promise<void> {
    await this.mcpServers.close();
    const sandbox = this.sandbox;
    if (sandbox) await (await sandbox.catch(() => undefined))?.close();
    const embedded = this.embedded;
    this.embedded = undefined;
    // one that never started has nothing to stop (its call's receipt said why)
    if (embedded) await (await embedded.catch(() => undefined))?.close();
  }
}

/** A root as given (made absolute) and as its symlinks resolve, when it exists. */
function rootsOf(root: string): readonly string[] {
  const given = resolve(root);
  try {
    const real = realpathSync(given);
    return real === given ? [given] : [given, real];
  } catch {
    return [given];
  }
}

/** The password in a URL (the store's, the registry's), as the tools might print it: decoded, and as the URL writes it. */
function passwordsOf(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const written = new URL(url).password;
    return written === '' ? [] : [...new Set([decodeURIComponent(written), written])];
  } catch {
    return [];
  }
}

/** An http(s) URL without its `user:password@`, query and fragment; anything else (a local path) as it is. */
function withoutCredentials(source: string): string {
  return /^https?:\/\//i.test(source) ? redactUrl(source) : source;
}
