import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { DeclaredSandbox } from '../core/index.js';
import { processContainment, type LaunchPlan, type Sandbox } from '../sandbox/index.js';

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
}

/** Time between SIGTERM and SIGKILL to the server's process group when it is stopped. */
const STOP_GRACE_MS = 2_000;

/** Bytes of the server's stderr kept, the latest, to say why it died. */
const STDERR_TAIL_BYTES = 4096;

/** Most bytes of messages to the server (requests, and answers to its own requests) waiting for it to read them. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** Largest single JSON-RPC message accepted from the server. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

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
  readonly #lines = new LineReader(MAX_MESSAGE_BYTES);
  #stderrTail = '';
  #status = '';
  #ending: { exitCode: number | null; signal: NodeJS.Signals | null } | undefined;
  #closed: Promise<void> | undefined;
  #stopping = false;
  /** why we stopped the server ourselves, when it broke the protocol */
  #broke: string | undefined;

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
    const stdio = plan.statusFd === undefined ? ['pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe'];
    const child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, detached: true, stdio: stdio as ['pipe', 'pipe', 'pipe'], windowsHide: true });
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
    let lines: Buffer[];
    try {
      lines = this.#lines.push(chunk);
    } catch (error) {
      // a message beyond the limit: the stream cannot be trusted any more
      this.#broke = (error as Error).message;
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (const line of lines) {
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line.toString('utf8').replace(/\r$/, ''));
      } catch (error) {
        // a line that is not JSON-RPC (a server printing to stdout): reported, and the stream goes on
        this.onerror?.(error as Error);
        continue;
      }
      this.onmessage?.(message);
    }
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

/**
 * Newline-delimited lines from a stream, each end looked for only in the bytes that just came. The SDK's `ReadBuffer`
 * joined its whole buffer to each chunk and searched it from the start: a 64 MiB line in 64 KiB pipe chunks copied
 * ~34 GB on the event loop (512 s measured; a server-filesystem `read_file` of a large log is such a line).
 */
export class LineReader {
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The lines `chunk` completes, without their newline; throws when a line passes `maxBytes`. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
      this.#grow(newline - start);
      const part = chunk.subarray(start, newline);
      lines.push(this.#pending.length === 0 ? part : Buffer.concat([...this.#pending, part], this.#pendingBytes));
      this.#pending = [];
      this.#pendingBytes = 0;
      start = newline + 1;
    }
    if (start < chunk.length) {
      this.#grow(chunk.length - start);
      this.#pending.push(chunk.subarray(start));
    }
    return lines;
  }

  #grow(bytes: number): void {
    this.#pendingBytes += bytes;
    if (this.#pendingBytes > this.maxBytes) throw new Error(`a message from the MCP server is larger than ${this.maxBytes} bytes`);
  }
}
