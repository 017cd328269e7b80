import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { DeclaredSandbox } from '../core/index.js';
import { closePassed, planStdio, processContainment, type LaunchPlan, type Sandbox } from '../sandbox/index.js';
import { AnswerTooLarge, currentAnswerBound, type AnswerCutter, type CallBound } from './answer-bound.js';
import { LineReader, type LineEvent } from './line-reader.js';
import { answered, UNASKED_BYTES_FLOOD, UNASKED_FLOOD, UnaskedCount } from './unasked-count.js';

/** The one place a stdio MCP server is started: what to run, and the sandbox it runs in. */
export interface ServerLaunch {
  command: string;
  args: readonly string[];
  /** the complete environment of the server */
  env: Record<string, string>;
  cwd: string;
  /** `cwd` is the gateway's own folder for this server (not the operator's choice): the sandbox shows it read-only */
  ownCwd?: boolean;
  /** the folder the server may write */
  workspace: string;
  /** the host's sandbox; without one the server still gets a PID namespace that ends with it */
  sandbox?: Sandbox;
  /** what the server may see and use in the sandbox: network, more paths, limits */
  declared?: DeclaredSandbox;
  /** told of a line of the server's that passed the bound and was skipped (for the gateway's log) */
  onSkipped?: (skipped: { bytes: number; bound: number; failed: number }) => void;
  /** told when the gateway stops the server for breaking the protocol (why, for the gateway's log) */
  onBroke?: (why: string) => void;
}

/** Time between SIGTERM and SIGKILL to the server's process group when it is stopped. */
const STOP_GRACE_MS = 2_000;

/** Bytes of the server's stderr kept, the latest, to say why it died. */
const STDERR_TAIL_BYTES = 4096;

/** Most bytes of messages to the server (requests, and answers to its own requests) waiting for it to read them. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** Largest single JSON-RPC message accepted from the server, while a request no call bounds (initialize, tools/list) waits. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Largest message accepted from the server while no request waits: notifications and pings need little. */
export const IDLE_MESSAGE_BYTES = 1024 * 1024;

/** Lines handed on in one turn of the event loop before reading waits for the next: the other requests get their turn. */
const LINES_PER_TURN = 256;

// JSON-RPC's "internal error": how a call whose answer passed its bound is failed (not the SDK's ConnectionClosed)
const INTERNAL_ERROR = -32603;

type Id = string | number;

const NEWLINE = Buffer.from('\n');

/**
 * The SDK's `Transport` over a server process started through the sandbox, in a process group of its own: stopping
 * it (or its death) ends everything it started. Newline-delimited JSON-RPC on stdin/stdout, as the SDK's own stdio
 * transport speaks it; stderr is kept (its tail) to say why the server ended.
 */
export class LaunchedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #child: ChildProcess | undefined;
  #plan: LaunchPlan | undefined;
  readonly #lines = new LineReader(() => this.#bound());
  /** the requests sent and not yet answered or cancelled: the most bytes the answer may take, and the first line that may hold it */
  // keyed by the request an answer answers, as the SDK matches it: a `"0"` answer ends request 0's wait (review Z18, Z18-1)
  readonly #waiting = new Map<number, { bound: CallBound; firstLine: number }>();
  /** what cuts the long strings of the line being read: the cutter of the one call that may be answered in it */
  #lineCutter: AnswerCutter | undefined;
  /** the calls failed by the line being skipped, told with it when it ends */
  #failedBySkip = 0;
  /** the bytes read since the line being skipped passed the bound of a call that may be answered in it (undefined for none) */
  #skippedAsked: number | undefined;
  #stderrTail = '';
  #status = '';
  #ending: { exitCode: number | null; signal: NodeJS.Signals | null } | undefined;
  #closed: Promise<void> | undefined;
  #stopping = false;
  /** why we stopped the server ourselves, when it broke the protocol */
  #broke: string | undefined;
  /** lines handed on in this turn of the loop, and whether reading waits for the next turn */
  #linesThisTurn = 0;
  #yielding = false;
  /** messages nobody asked for: no call's allowance, as a stdio server's lines come in order (nothing it logged during a call is read after the call's answer) */
  readonly #unasked = new UnaskedCount();

  constructor(private readonly launch: ServerLaunch) {}

  /** The server's process id (the sandbox's launcher, whose end ends the server), while it runs. */
  get pid(): number | undefined {
    return this.#ending ? undefined : this.#child?.pid;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error('LaunchedStdioTransport already started');
    const sandbox = this.launch.sandbox ?? (await processContainment());
    const { command, args, cwd, env, workspace, declared, ownCwd } = this.launch;
    // an MCP server's sandbox is the operator's config, not a definition: the ceiling set for the repository's does not hold it
    const launched = await sandbox.launch({ file: command, args, cwd, env, workspace, operator: true, ...(ownCwd ? { ownCwd } : {}), ...(declared ? { declared } : {}) });
    if (!launched.ok) throw Object.assign(new Error(launched.message), { code: launched.code });
    const plan = (this.#plan = launched.plan);
    const stdio = planStdio(plan, plan.statusFd === undefined ? ['pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe']);
    let child: ChildProcess;
    try {
      child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, detached: true, stdio: stdio as ['pipe', 'pipe', 'pipe'], windowsHide: true });
    } finally {
      // the launcher has its own copies now (the seccomp program's, the binds' sources)
      closePassed(plan);
    }
    this.#child = child;
    child.stdout!.on('data', (chunk: Buffer) => this.#receive(chunk));
    child.stderr!.on('data', (chunk: Buffer) => (this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES)));
    if (plan.statusFd !== undefined) (child.stdio[plan.statusFd] as Readable).on('data', (chunk: Buffer) => (this.#status += chunk.toString('utf8')));
    // a server that stops reading (it died) must not crash the gateway with EPIPE
    child.stdin!.on('error', (error) => this.onerror?.(error));
    this.#closed = new Promise((resolve) => {
      child.once('close', (exitCode: number | null, signal: NodeJS.Signals | null) => {
        this.#ending = { exitCode, signal };
        this.#killGroup('SIGKILL');
        resolve();
        this.onclose?.();
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => (child.pid === undefined ? reject(error) : this.onerror?.(error)));
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#ending || stdin.destroyed || this.#broke !== undefined) throw new Error('Not connected: the MCP server process has ended');
    const line = serializeMessage(message);
    // what waits for the server to read is bounded here, not by waiting for 'drain': a server that stops reading and
    // sends requests (pings) would otherwise hold every answer, and the SDK's promise around it, in the gateway's heap
    if (stdin.writableLength > 0 && stdin.writableLength + Buffer.byteLength(line) > MAX_QUEUED_BYTES) {
      this.#broke = `it stopped reading its stdin: more than ${MAX_QUEUED_BYTES} bytes of messages to it were waiting`;
      void this.close();
      throw new Error(`Not connected: MCP server ${this.#broke}`);
    }
    this.#track(message);
    stdin.write(line);
  }

  /** Ends the server: stdin closed, then SIGTERM to its group, SIGKILL after a grace. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#ending) return;
    this.#stopping = true;
    child.stdin?.end();
    this.#killGroup('SIGTERM');
    const timer = setTimeout(() => this.#killGroup('SIGKILL'), STOP_GRACE_MS);
    await this.#closed;
    clearTimeout(timer);
  }

  /** How the server ended (`exited with code 1`, `was killed by SIGKILL`), and the tail of its stderr, for a receipt. */
  async describeEnd(): Promise<{ how: string; stderr: string; failure?: 'SANDBOX_FAILED' | 'SPAWN_FAILED' }> {
    const ending = this.#ending;
    if (!ending) return { how: 'is running', stderr: '' };
    const outcome = await this.#plan?.finish({ ...ending, status: this.#status, stderr: this.#stderrTail, stopped: this.#stopping }).catch(() => undefined);
    const exitCode = outcome?.exitCode ?? ending.exitCode;
    const signal = outcome?.signal ?? ending.signal;
    const how = outcome?.failure
      ? `could not run (${outcome.failure.code}: ${outcome.failure.message})`
      : this.#broke !== undefined
        ? `was stopped by the gateway (${this.#broke})`
        : signal
          ? `was killed by ${signal}`
          : `exited with code ${exitCode}`;
    // a server that never ran (the sandbox could not be set up, no such program) says nothing of its own
    if (outcome?.failure) return { how, stderr: '', failure: outcome.failure.code };
    return { how, stderr: this.#stderrTail.trim() };
  }

  #receive(chunk: Buffer): void {
    // a server stopped for breaking the protocol is not read any more: what it still sends is dropped
    if (this.#broke !== undefined) return;
    // its bytes are counted as they come, before any line of them is whole: a line past IDLE_MESSAGE_BYTES was only
    // skipped, so a few huge notifications between calls were read for ever (review Z21, Z21-5)
    // the rest of a line skipped past the bound of a call that may be answered in it is that answer's, to MAX_MESSAGE_BYTES
    const asked = this.#waiting.size > 0 || (this.#skippedAsked !== undefined && (this.#skippedAsked += chunk.length) <= MAX_MESSAGE_BYTES);
    if (!this.#unasked.bytes(chunk.length, asked)) return this.#stop(UNASKED_BYTES_FLOOD);
    if (this.#lineCutter === undefined && !this.#cutting()) this.#handle(this.#lines.push(chunk));
    else this.#cutLines(chunk);
    this.#yieldIfBusy();
  }

  /**
   * Past LINES_PER_TURN lines in this turn of the loop, reading pauses until the next turn (a chunk is at most 64 KiB,
   * so a turn's work is bounded), as the HTTP transport's boundedFetch yields between chunks: a server writing fast
   * cannot hold the event loop, and every other request of the gateway is answered in between (review Z11, Z11-4).
   */
  #yieldIfBusy(): void {
    if (this.#linesThisTurn < LINES_PER_TURN || this.#yielding) return;
    const stdout = this.#child?.stdout;
    if (!stdout) return;
    this.#yielding = true;
    stdout.pause();
    setImmediate(() => {
      this.#yielding = false;
      this.#linesThisTurn = 0;
      if (!stdout.destroyed) stdout.resume();
    });
  }

  /**
   * Counts a message no request of the gateway's asked for while none waits (UnaskedCount); past the count the server
   * is stopped as broken, its output no longer read, and the calls that need it are told why. Lines that are not
   * JSON-RPC are counted too, before they are parsed.
   */
  #countUnasked(): boolean {
    if (this.#unasked.allows(this.#waiting.size > 0)) return true;
    this.#stop(UNASKED_FLOOD);
    return false;
  }

  /** Stops the server as broken (`why`): its output no longer read. */
  #stop(why: string): void {
    this.#broke = why;
    this.launch.onBroke?.(why);
    this.#child?.stdout?.destroy();
    void this.close();
  }

  /** Hands on what the line reader found (a line answering a call ends its wait before the next line begins). */
  #handle(events: LineEvent[]): void {
    for (const event of events) {
      if (event.kind === 'line') this.#deliver(event.line);
      else if (event.kind === 'passed') this.#refuseWaiting(event.line, event.bytes);
      else {
        this.#skippedAsked = undefined;
        this.launch.onSkipped?.({ bytes: event.bytes, bound: event.bound, failed: this.#failedBySkip });
      }
    }
  }

  #deliver(line: Buffer): void {
    if (this.#broke !== undefined) return;
    this.#linesThisTurn += 1;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line.toString('utf8').replace(/\r$/, ''));
    } catch (error) {
      // a line that is not JSON-RPC (a server printing to stdout): reported, and the stream goes on; nobody asked for it
      if (this.#countUnasked()) this.onerror?.(error as Error);
      return;
    }
    const id = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
    const waiting = id === undefined ? undefined : this.#waiting.get(answered(id));
    if (waiting !== undefined) {
      this.#waiting.delete(answered(id!));
      // held within the largest bound of the calls waiting, it may be an answer past its own call's
      if (line.length > waiting.bound.maxBytes) return this.#refuse(id!, waiting.bound.maxBytes, `it was ${line.length} bytes`);
    } else if (!this.#countUnasked()) return;
    this.onmessage?.(message);
  }

  /**
   * Line `line` passed the bound of every call that may be answered in it (the largest of theirs): it is skipped, not
   * kept, so whose answer it was cannot be read; each call whose bound it passed fails now rather than at its deadline
   * (a call whose answer it was not fails too: that answer would come after it, to a call already failed). A call sent
   * once the line had begun cannot be answered in it, and is left waiting.
   */
  #refuseWaiting(line: number, bytes: number): void {
    this.#failedBySkip = 0;
    this.#skippedAsked = undefined;
    for (const [id, { bound, firstLine }] of this.#waiting) {
      if (bound.over || firstLine > line) continue;
      this.#skippedAsked = 0;
      if (bound.maxBytes >= bytes) continue;
      this.#waiting.delete(id);
      this.#failedBySkip += 1;
      this.#refuse(id, bound.maxBytes, `a line of the server's passed it while the call waited, ${bytes} bytes when it was dropped; it was not kept, so whose answer it was is not known; the rest of it is skipped and the server kept`);
    }
  }

  /** Fails request `id` with an error no server can send (its data is an AnswerTooLarge). */
  #refuse(id: Id, bound: number, detail: string): void {
    const most = bound >= MAX_MESSAGE_BYTES ? '' : ', the most a call of its tool may receive';
    const how = `an answer from the MCP server is larger than ${bound} bytes${most} (${detail})`;
    this.onmessage?.({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: how, data: new AnswerTooLarge(how) } });
  }

  /**
   * Reads `chunk` a line at a time, each line's long strings cut as they come when one call alone may be answered in
   * it (an answer of any length is then read within the bound, as an HTTP server's is, and its receipt says what was
   * cut); a line that several calls wait on is held to the largest of their bounds, uncut.
   */
  #cutLines(chunk: Buffer): void {
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      // chosen at the line's first byte: a call sent before it came may be answered in it
      if (this.#lineCutter === undefined && !this.#lines.midLine && end > start) this.#lineCutter = this.#cutterOfLine();
      const part = chunk.subarray(start, end);
      this.#handle(this.#lines.push(this.#lineCutter ? asBuffer(this.#lineCutter.push(part)) : part));
      if (newline < 0) return;
      this.#lineCutter = undefined;
      this.#handle(this.#lines.push(NEWLINE));
      start = newline + 1;
    }
  }

  /** Whether a call waiting may have its answer cut. */
  #cutting(): boolean {
    for (const { bound } of this.#waiting.values()) if (bound.newCutter && !bound.over) return true;
    return false;
  }

  /** A cutter for the line beginning now, from the one call that may be answered in it (none when several may). */
  #cutterOfLine(): AnswerCutter | undefined {
    const line = this.#lines.linesEnded;
    let owner: CallBound | undefined;
    for (const { bound, firstLine } of this.#waiting.values()) {
      if (bound.over || firstLine > line) continue;
      if (owner !== undefined) return undefined;
      owner = bound;
    }
    return owner?.newCutter?.();
  }

  /** Notes a request sent (with its call's bound), or a cancel that ends one. */
  #track(message: JSONRPCMessage): void {
    if (!('method' in message)) return;
    if ('id' in message) {
      // a line already begun was begun before the server had this request
      const firstLine = this.#lines.linesEnded + (this.#lines.midLine || this.#lineCutter !== undefined ? 1 : 0);
      this.#waiting.set(answered(message.id), { bound: currentAnswerBound() ?? { maxBytes: MAX_MESSAGE_BYTES, over: false }, firstLine });
      return;
    }
    const cancelled = message.method === 'notifications/cancelled' ? (message.params as { requestId?: Id } | undefined)?.requestId : undefined;
    if (cancelled !== undefined) this.#waiting.delete(answered(cancelled));
  }

  /** The most the line being read may hold: the largest bound of the requests that may be answered in it, IDLE_MESSAGE_BYTES with none. */
  #bound(): number {
    const line = this.#lines.linesEnded;
    let largest: number | undefined;
    for (const [id, { bound, firstLine }] of this.#waiting) {
      if (bound.over) this.#waiting.delete(id);
      else if (firstLine <= line) largest = Math.max(largest ?? 0, bound.maxBytes);
    }
    return Math.min(largest ?? IDLE_MESSAGE_BYTES, MAX_MESSAGE_BYTES);
  }

  #killGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is gone
    }
  }
}

/** The same bytes as a Buffer, not copied. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
