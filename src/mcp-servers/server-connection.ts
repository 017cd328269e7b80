import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode } from '../core/index.js';
import { boundBytes, describeError, minimalEnvironment, type McpCallOptions, type McpCallOutcome } from '../executors/index.js';
import type { Sandbox } from '../sandbox/index.js';
import { AnswerTooLarge, withAnswerBound } from './answer-bound.js';
import type { AnswerEnds } from './bounded-fetch.js';
import { loadClientKit, type ClientKit } from './client-kit.js';
import { answerLost, connectionLost, heardNote, stderrLine, stderrLineFor, type Live } from './live-connection.js';
import { networkNote } from './network-note.js';
import { permissionNote } from './permission-note.js';
import { DEFAULT_SERVER_CPU_SECONDS, type McpServerConfig } from './server-config.js';
import type { LaunchedStdioTransport } from './stdio-transport.js';
import { serverFolder } from './server-folder.js';
import { abortable, listRefusal, listSizeRefusal } from './tools-listing.js';

/** What every connection of a pool shares. */
export interface ConnectionDefaults {
  /** what a stdio server may write (it does not run there: see `serversFolder`) */
  workspace: string;
  /**
   * the gateway's own folder holding each stdio server's working folder (`<data_dir>/mcp-servers`) where its config
   * names none: never the workspace, where any tool could plant what npx or `python -m` would run in the server's place
   */
  serversFolder: string;
  /** the host's sandbox, probed once by whoever owns it; without one a stdio server still gets a PID namespace of its own */
  sandbox?: () => Promise<Sandbox>;
  /** how the gateway introduces itself in `initialize` */
  clientInfo: { name: string; version: string };
  /** the gateway's log, for what a server sent that no call was told of (a line past the bound, skipped) */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** One server's state, for health checks and operators. */
export interface ServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: 'stopped' | 'starting' | 'running';
  /** the stdio server's process id, while it runs */
  pid?: number;
  /** how many times it was started again after it ended on its own */
  restarts: number;
  calls_in_flight: number;
}

// the SDK's ErrorCode.RequestTimeout: a request that got no answer within its timeout
const REQUEST_TIMEOUT = -32001;

// At most this much of a server's error answer to tools/list is kept (hldp import mcp prints it)
const LIST_ERROR_BYTES = 64 * 1024;

// The gateway's log line for a server stopped for breaking the protocol
const BROKE = 'an MCP server broke the protocol and was stopped';

// Our own deadline fires first: the SDK's request timeout is only a backstop behind it.
const SDK_TIMEOUT_SLACK_MS = 5_000;

/**
 * One configured MCP server: started (or connected) on first use, one process and connection shared by every call,
 * started again when it ended on its own, and stopped after an idle time. A call that sees the server die is
 * retried once on a fresh one only where a second run is safe (the call is idempotent, or it never reached the
 * server); what happened is reported in the outcome's `notes`.
 */
export class ServerConnection {
  #live: Live | undefined;
  #starting: Promise<Live> | undefined;
  /** stops the start in progress: a server that never answers initialize held the gateway's shutdown for startup_timeout_ms */
  #startAborter: AbortController | undefined;
  /** a connection that ended on its own between calls, told to the next call that starts a new one */
  #endedOnItsOwn: Live | undefined;
  #inFlight = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  #restarts = 0;
  /** a call reported the server's end and did not retry: the next start is a restart */
  #restartOwed = false;

  constructor(
    readonly name: string,
    private readonly config: McpServerConfig,
    private readonly defaults: ConnectionDefaults,
  ) {}

  /**
   * `tools/call` on this server, within the caller's deadline. A connection that drops mid-call is dropped (the next
   * call starts a fresh one); the call is retried once on it only when `options.idempotent` says a second run is safe,
   * or when the request never reached the server. Otherwise the outcome says the call may or may not have run.
   */
  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallOutcome> {
    const outcome = await this.#call(tool, args, options);
    const sandbox = this.defaults.sandbox ? await this.defaults.sandbox() : undefined;
    const added = [networkNote(this.name, this.config, sandbox, outcome), permissionNote(this.name, this.config, sandbox, outcome)].filter((note): note is string => note !== undefined);
    return added.length === 0 ? outcome : { ...outcome, notes: [...(outcome.notes ?? []), ...added] };
  }

  #call(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallOutcome> {
    return this.#using(async (notes) => {
      for (let attempt = 0; ; attempt += 1) {
        const live = await this.#connect(options.signal, notes, options.caller);
        // a first attempt stopped before the server was up never reached it: no cancellation went out either
        if (!live.ok) return { ok: false, code: live.code, message: live.message, notes, ...(attempt === 0 ? { unsent: true as const } : {}) };
        live.live.callers.add(options.caller ?? '');
        const heard = { received: live.live.received.copy(), refused: live.live.refused.count };
        const told = (): void => {
          const note = heardNote(this.name, live.live.received.since(heard.received), live.live.refused.count - heard.refused);
          if (note !== undefined) notes.push(note);
        };
        try {
          const call = (): Promise<unknown> =>
            live.live.client.callTool({ name: tool, arguments: args }, undefined, {
              signal: options.signal,
              timeout: options.timeoutMs + SDK_TIMEOUT_SLACK_MS,
              ...(options.onProgress ? { onprogress: ({ progress, total, message }) => options.onProgress!({ progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) }) } : {}),
            });
          const result = (await (options.maxAnswerBytes === undefined ? call() : withAnswerBound(options.maxAnswerBytes, call, options.answerCutter))) as CallToolResult;
          return { ok: true, answer: { content: result.content, ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}), ...(result.isError ? { isError: true } : {}) }, notes };
        } catch (error) {
          // a call that ends without its answer says what the server sent meanwhile (review K, K15: a flood of pings)
          if (options.signal.aborted) {
            told();
            return { ok: false, code: 'CANCELLED', message: describeError(error), notes };
          }
          const lostAnswer = answerLost(error, live.live.kit);
          if (lostAnswer !== undefined) {
            told();
            const message = `MCP server '${this.name}': the event stream of its answer to tools/call of '${tool}' ${lostAnswer} before the answer came: the call may or may not have run, and it was not retried`;
            return { ok: false, code: 'CONNECTION_FAILED', message, notes };
          }
          // a stdio server's line past the call's bound, skipped (review S, S9): the server is kept
          if (error instanceof live.live.kit.McpError && error.data instanceof AnswerTooLarge) {
            told();
            return { ok: false, code: 'MCP_ERROR', message: `MCP server '${this.name}', tools/call of '${tool}': ${error.data.how}`, notes };
          }
          const lost = connectionLost(error, live.live);
          if (lost === undefined) return { ok: false, code: 'MCP_ERROR', message: `MCP server '${this.name}' answered tools/call of '${tool}' with an error: ${describeError(error)}`, notes };
          told();
          // this call reports the end itself: the next start is its retry (or owed to the next call), not news
          if (this.#endedOnItsOwn === live.live) this.#endedOnItsOwn = undefined;
          const { how, stderr: tail } = await this.#forget(live.live);
          const stderr = stderrLineFor(live.live, options.caller, tail);
          if (attempt > 0) return { ok: false, code: 'CONNECTION_FAILED', message: `MCP server '${this.name}' ${how} during the call, again after a restart; not retried a second time${stderr}`, notes };
          if (lost === 'during the call' && options.idempotent !== true) {
            this.#restartOwed = true;
            const message = `MCP server '${this.name}' ${how} during the call of '${tool}': the call may or may not have run, and it was not retried, since its tool does not declare a second run safe (mcp.idempotent: true in its TOOL.hdlp, which hldp import mcp writes for a tool the server marks idempotentHint or readOnlyHint). The server is started again on the next call${stderr}`;
            return { ok: false, code: 'CONNECTION_FAILED', message, notes };
          }
          notes.push(`MCP server '${this.name}' ${how} during the call; it was started again and the call retried once${stderr}`);
          this.#restarts += 1;
        }
      }
    });
  }

  /** Every tool the server lists (`tools/list`, all pages). */
  async listTools(signal: AbortSignal): Promise<{ ok: true; tools: Tool[] } | { ok: false; code: ErrorCode; message: string }> {
    return this.#using(async (notes) => {
      const live = await this.#connect(signal, notes);
      if (!live.ok) return live;
      const tools: Tool[] = [];
      try {
        // a server that answers a next page for ever (or the same cursor again) is stopped, not followed until memory runs out
        const seen = new Set<string>();
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await live.live.client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout: this.config.startupTimeoutMs });
          for (const tool of page.tools) tools.push(tool);
          pages += 1;
          cursor = page.nextCursor;
          const refused = listSizeRefusal(this.name, pages, tools.length) ?? (cursor === undefined ? undefined : listRefusal(this.name, seen, cursor, tools.length));
          if (refused) return { ok: false, code: 'MCP_ERROR', message: refused };
        } while (cursor !== undefined);
      } catch (error) {
        // the server's own text, bounded as a call's error is by its tool's cap: no tool here, so this one
        return { ok: false, code: 'MCP_ERROR', message: boundBytes(`MCP server '${this.name}' answered tools/list with an error: ${describeError(error)}`, LIST_ERROR_BYTES).text };
      }
      return { ok: true, tools };
    });
  }

  status(): ServerStatus {
    const live = this.#live;
    const pid = live && live.transport instanceof live.kit.LaunchedStdioTransport ? live.transport.pid : undefined;
    return {
      name: this.name,
      transport: this.config.transport,
      state: this.#live ? 'running' : this.#starting ? 'starting' : 'stopped',
      ...(pid === undefined ? {} : { pid }),
      restarts: this.#restarts,
      calls_in_flight: this.#inFlight,
    };
  }

  /** Stops the server (or ends the HTTP session) now; the next call starts it again. */
  async stop(): Promise<void> {
    clearTimeout(this.#idleTimer);
    this.#startAborter?.abort(new Error('the gateway stopped it while it was starting'));
    const live = this.#live ?? (await this.#starting?.catch(() => undefined));
    this.#live = undefined;
    this.#starting = undefined;
    if (!live) return;
    if (live.transport instanceof live.kit.StreamableHTTPClientTransport) await live.transport.terminateSession().catch(() => undefined);
    await live.client.close().catch(() => undefined);
  }

  async #using<T>(work: (notes: string[]) => Promise<T>): Promise<T> {
    this.#inFlight += 1;
    clearTimeout(this.#idleTimer);
    try {
      return await work([]);
    } finally {
      this.#inFlight -= 1;
      if (this.#inFlight === 0 && this.config.idleMs > 0) {
        this.#idleTimer = setTimeout(() => void this.stop(), this.config.idleMs);
        this.#idleTimer.unref();
      }
    }
  }

  /** The live connection, started now if there is none (one start shared by the calls waiting for it). */
  async #connect(signal: AbortSignal, notes: string[], caller?: string): Promise<{ ok: true; live: Live } | { ok: false; code: ErrorCode; message: string }> {
    if (this.#live) return { ok: true, live: this.#live };
    if (!this.#starting) {
      const ended = this.#endedOnItsOwn;
      if (ended !== undefined) {
        this.#endedOnItsOwn = undefined;
        const { how, stderr } = await this.#forget(ended);
        notes.push(`MCP server '${this.name}' ${how} since its last call; it was started again${stderrLineFor(ended, caller, stderr)}`);
        this.#restarts += 1;
      }
      if (this.#restartOwed) {
        this.#restartOwed = false;
        this.#restarts += 1;
      }
      this.#startAborter = new AbortController();
      this.#starting = this.#start(this.#startAborter.signal);
      this.#starting.then(
        (live) => ((this.#live = live), (this.#starting = undefined)),
        () => (this.#starting = undefined),
      );
    }
    try {
      return { ok: true, live: await abortable(this.#starting, signal) };
    } catch (error) {
      if (signal.aborted) return { ok: false, code: 'CANCELLED', message: `stopped while MCP server '${this.name}' was starting` };
      const code = (error as { code?: unknown }).code;
      const known = code === 'SPAWN_FAILED' || code === 'SANDBOX_FAILED' || code === 'SANDBOX_UNAVAILABLE' || code === 'EXECUTOR_MISCONFIGURED';
      return { ok: false, code: known ? (code as ErrorCode) : 'CONNECTION_FAILED', message: `MCP server '${this.name}' could not be started: ${describeError(error)}` };
    }
  }

  async #start(stopped: AbortSignal): Promise<Live> {
    const kit = await loadClientKit();
    const refused = { count: 0 };
    const ends: AnswerEnds = { onRefused: () => (refused.count += 1) };
    const transport = await this.#transport(kit, ends);
    // a stdio server is held to the count of unasked messages by its own transport, which counts its lines before they are parsed
    const onBroke = (why: string): void => {
      live.broke = why;
      this.defaults.warn?.({ server: this.name, why }, BROKE);
    };
    const ordered = new kit.OrderedTransport(transport, transport instanceof kit.LaunchedStdioTransport ? undefined : onBroke);
    ends.onEnded = (id, how) => ordered.unanswered(id, how);
    ends.onBytes = (bytes) => ordered.bytes(bytes);
    const client = new kit.Client(this.defaults.clientInfo, { capabilities: {} });
    const live: Live = { client, transport, kit, received: ordered.received, refused, callers: new Set() };
    client.onclose = () => {
      live.closed = true;
      // ended on its own (a crash, a dropped connection), not by stop(): the next call says so and starts anew
      if (this.#live !== live) return;
      this.#live = undefined;
      this.#endedOnItsOwn = live;
    };
    try {
      await client.connect(ordered, { timeout: this.config.startupTimeoutMs, signal: stopped });
    } catch (error) {
      const ended = transport instanceof kit.LaunchedStdioTransport ? await transport.describeEnd() : { how: 'is running', stderr: '' };
      await client.close().catch(() => undefined);
      // the SDK's own words ("MCP error -32001: Request timed out") name no limit: say which one the server missed (review R, R14)
      if (ended.how === 'is running' && (error as { code?: unknown }).code === REQUEST_TIMEOUT) {
        throw new Error(`it did not answer initialize within startup_timeout_ms (${this.config.startupTimeoutMs} ms); raise startup_timeout_ms in its mcp_servers entry if it starts slowly`);
      }
      if (ended.how === 'is running') throw error;
      const message = ended.failure ? `the server ${ended.how}` : `${describeError(error)}; the server ${ended.how}${stderrLine(ended.stderr)}`;
      throw Object.assign(new Error(message), { code: ended.failure ?? (error as { code?: unknown }).code });
    }
    return live;
  }

  async #transport(kit: ClientKit, ends: AnswerEnds): Promise<LaunchedStdioTransport | StreamableHTTPClientTransport> {
    const { config } = this;
    if (config.transport === 'http') {
      const headers = { ...config.headers, ...(config.token ? { authorization: `Bearer ${config.token}` } : {}) };
      return new kit.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers }, fetch: kit.boundedFetch(undefined, ends) });
    }
    const cwd = config.cwd ?? (await serverFolder(this.defaults.serversFolder, this.name));
    return new kit.LaunchedStdioTransport({
      command: config.command,
      args: config.args,
      env: minimalEnvironment(config.env),
      cwd,
      ...(config.cwd === undefined ? { ownCwd: true } : {}),
      workspace: this.defaults.workspace,
      ...(this.defaults.sandbox ? { sandbox: await this.defaults.sandbox() } : {}),
      declared: { ...config.sandbox, limits: { cpu_seconds: DEFAULT_SERVER_CPU_SECONDS, ...config.sandbox?.limits } },
      onSkipped: ({ bytes, bound, failed }) => this.defaults.warn?.({ server: this.name, bytes, bound, calls_failed: failed }, 'a line from an MCP server passed the bound of the calls waiting on it and was skipped'),
      onBroke: (why) => this.defaults.warn?.({ server: this.name, why }, BROKE),
    });
  }

  /** Drops a connection that ended, and says how it ended (worked out once per connection). */
  #forget(live: Live): Promise<{ how: string; stderr: string }> {
    if (this.#live === live) this.#live = undefined;
    live.ending ??= (async () => {
      const ending = live.transport instanceof live.kit.LaunchedStdioTransport ? await live.transport.describeEnd() : { how: live.broke === undefined ? 'closed the connection' : `was stopped by the gateway (${live.broke})`, stderr: '' };
      await live.client.close().catch(() => undefined);
      return ending;
    })();
    return live.ending;
  }
}
