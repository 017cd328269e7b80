import { stat } from 'node:fs/promises';
import type { ExecutionResult } from '../core/index.js';
import { failedResult, minimalEnvironment, resolveInsideRoot, runProcess } from '../executors/index.js';
import type { MethodContext } from './method-context.js';

/** `exec {cmd, cwd?}`: `sh -c cmd` in a folder inside the root, under the shared constraint runner, with a minimal environment. */
export async function execMethod(params: { cmd: string; cwd?: string }, context: MethodContext): Promise<ExecutionResult> {
  const start = performance.now();
  // the kernel ends an argument at a NUL: `sh -c` would run a command cut short of what the receipt records, as the
  // shell executor refuses it (review R, R11)
  if (params.cmd.includes('\0') || params.cwd?.includes('\0')) return failedResult('INVALID_PARAMS', 'parameter values may not contain NUL characters (\\0): cmd and cwd are passed to the kernel, which ends them at the first', start);
  const resolved = await resolveInsideRoot(context.root, params.cwd ?? '.', { hidden: context.hidden ?? [] });
  if (!resolved.ok) return failedResult(resolved.code, resolved.message, start);
  const info = await stat(resolved.path).catch(() => undefined);
  if (!info?.isDirectory()) return failedResult('IO_ERROR', `ENOTDIR: working directory '${params.cwd}' is not a folder`, start);
  return runProcess({
    file: 'sh',
    args: ['-c', params.cmd],
    cwd: resolved.path,
    // the gatekeeper's own environment holds its token: the command sees none of it
    env: minimalEnvironment(),
    timeoutMs: context.timeoutMs,
    maxOutputBytes: context.maxOutputBytes,
    signal: context.signal,
    ...(context.sandbox ? { isolation: { sandbox: context.sandbox, workspace: context.root, ...(context.declared ? { declared: context.declared } : {}) } } : {}),
  });
}
