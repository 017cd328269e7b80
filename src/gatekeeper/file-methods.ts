import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import {
  BoundedOutput,
  boundBytes,
  describeError,
  failedResult,
  resolveInsideRoot,
  startDeadline,
  succeededResult,
  type OutputEncoding,
} from '../executors/index.js';
import type { ExecutionResult } from '../core/index.js';
import type { MethodContext } from './method-context.js';

const READ_CHUNK_BYTES = 64 * 1024;

/** `read_file {path, encoding?}`: the file's bytes, streamed within the deadline and kept head and tail within the cap. */
export async function readFileMethod(params: { path: string; encoding?: OutputEncoding }, context: MethodContext): Promise<ExecutionResult> {
  const start = performance.now();
  const resolved = await resolveInsideRoot(context.root, params.path);
  if (!resolved.ok) return failedResult(resolved.code, resolved.message, start);
  const info = await stat(resolved.path).catch((error: unknown) => error as Error);
  if (info instanceof Error) return failedResult('IO_ERROR', describeError(info), start);
  // a FIFO or device would block or never end: only regular files are read
  if (!info.isFile()) return failedResult('IO_ERROR', `'${params.path}' is not a regular file${info.isDirectory() ? '; use list_dir for a folder' : ''}`, start);
  const deadline = startDeadline(context.timeoutMs, context.signal);
  const output = new BoundedOutput(context.maxOutputBytes);
  let stopped: string | null = null;
  try {
    // the path is resolved already: O_NOFOLLOW refuses a symlink swapped in since then
    const handle = await open(resolved.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      // one reused buffer: a file of any size costs the cap and this chunk, nothing more
      const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      for (;;) {
        stopped = deadline.reason();
        if (stopped !== null) break;
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        output.push(chunk.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    return failedResult('IO_ERROR', describeError(error), start);
  } finally {
    deadline.clear();
  }
  if (stopped === 'timeout') return failedResult('TIMEOUT', `reading '${params.path}' took longer than ${context.timeoutMs} ms`, start);
  if (stopped === 'cancelled') return failedResult('CANCELLED', 'cancelled by the caller', start);
  return succeededResult(output.render(params.encoding ?? 'utf8'), start);
}

/** `write_file {path, content, append?, create_dirs?, encoding?}`: writes or appends; never through a symlink. */
export async function writeFileMethod(
  params: { path: string; content: string; append?: boolean; create_dirs?: boolean; encoding?: OutputEncoding },
  context: MethodContext,
): Promise<ExecutionResult> {
  const start = performance.now();
  const resolved = await resolveInsideRoot(context.root, params.path, { allowMissing: true });
  if (!resolved.ok) return failedResult(resolved.code, resolved.message, start);
  const bytes = Buffer.from(params.content, params.encoding ?? 'utf8');
  try {
    if (params.create_dirs) await mkdir(dirname(resolved.path), { recursive: true });
    // the path is resolved already: O_NOFOLLOW refuses a symlink swapped in since then
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (params.append ? constants.O_APPEND : constants.O_TRUNC);
    const handle = await open(resolved.path, flags, 0o644);
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const hint = (error as NodeJS.ErrnoException).code === 'ENOENT' && !params.create_dirs ? '; set create_dirs: true to create missing folders' : '';
    return failedResult('IO_ERROR', describeError(error) + hint, start);
  }
  const report = { path: relative(resolved.root, resolved.path), bytes_written: bytes.length, appended: params.append === true };
  return succeededResult(boundBytes(JSON.stringify(report), context.maxOutputBytes), start);
}

/** `list_dir {path?}`: the folder's entries as JSON `[{name, type, size}]`, sorted by name; symlinks are not followed. */
export async function listDirMethod(params: { path?: string }, context: MethodContext): Promise<ExecutionResult> {
  const start = performance.now();
  const requested = params.path ?? '.';
  const resolved = await resolveInsideRoot(context.root, requested);
  if (!resolved.ok) return failedResult(resolved.code, resolved.message, start);
  try {
    const names = (await readdir(resolved.path)).sort();
    const entries = await Promise.all(
      names.map(async (name) => {
        const info = await lstat(join(resolved.path, name));
        const type = info.isFile() ? 'file' : info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'symlink' : 'other';
        return { name, type, size: info.size };
      }),
    );
    return succeededResult(boundBytes(JSON.stringify(entries), context.maxOutputBytes), start);
  } catch (error) {
    return failedResult('IO_ERROR', describeError(error), start);
  }
}
