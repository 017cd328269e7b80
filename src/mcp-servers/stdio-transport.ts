import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
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
  readonly #readBuffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  #stderrTail = '';
  #status = '';
  #ending: { exitCode: number | null; signal: NodeJS.Signals | null } | undefined;
  #closed: Promise<void> | undefined;
  #stopping = false;

  constructor(private readonly launch: ServerLaunch) {}

  /** The server's process id (the sandbox's launcher, whose end ends the server), while it runs. */
  get pid(): number | undefined {
    return this.#ending ? undefined : this.#child?.pid;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error('LaunchedStdioTransport already started');
    const sandbox = this.launch.sandbox ?? (await processContainment());
    const { command, args, cwd, env, workspace, declared } = this.launch;
    const launched = await sandbox.launch({ file: command, args, cwd, env, workspace, ...(declared ? { declared } : {}) });
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
    if (!stdin || this.#ending || stdin.destroyed) throw new Error('Not connected: the MCP server process has ended');
    if (!stdin.write(serializeMessage(message))) await new Promise<void>((resolve) => stdin.once('drain', resolve));
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
    const how = outcome?.failure ? `could not run (${outcome.failure.code}: ${outcome.failure.message})` : signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    // a server that never ran (the sandbox could not be set up, no such program) says nothing of its own
    if (outcome?.failure) return { how, stderr: '', failure: outcome.failure.code };
    return { how, stderr: this.#stderrTail.trim() };
  }

  #receive(chunk: Buffer): void {
    try {
      this.#readBuffer.append(chunk);
    } catch (error) {
      // a message beyond the limit: the stream cannot be trusted any more
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        // a line that is not JSON-RPC (a server printing to stdout): reported, and the stream goes on
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
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
