import { constants } from 'node:fs';
import { lstat, readdir, type FileHandle } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import {
  BoundedOutput,
  boundBytes,
  describeError,
  failedResult,
  isHiddenPath,
  openInsideRoot,
  pathOfHandle,
  type OpenInsideRootOptions,
  resolveInsideRoot,
  startDeadline,
  succeededResult,
  type OutputEncoding,
} from '../executors/index.js';
import type { ExecutionResult } from '../core/index.js';
import { workspaceConflict, writeRefusal } from '../sandbox/index.js';
import type { MethodContext } from './method-context.js';
import { readByteWindow, readLineWindow } from './windows.js';

const READ_CHUNK_BYTES = 64 * 1024;

/**
 * `read_file {path, encoding?, offset?, limit?}`: the file's bytes, streamed within the deadline and kept head and
 * tail within the cap; with `offset` or `limit`, a window of whole lines under a `[lines A-B of N]` header.
 */
export async function readFileMethod(params: { path: string; encoding?: OutputEncoding; offset?: number; limit?: number }, context: MethodContext): Promise<ExecutionResult> {
  const start = performance.now();
  const windowed = params.offset !== undefined || params.limit !== undefined;
  if (windowed && params.encoding === 'base64') {
    return failedResult('INVALID_PARAMS', 'offset and limit count lines of text; for a binary file use read_bytes (a hex dump by byte offset), or drop encoding: base64', start);
  }
  const unsafe = rootConflict(context);
  if (unsafe) return failedResult('EXECUTOR_MISCONFIGURED', unsafe, start);
  const opener = openerOf(context);
  if (!opener.ok) return failedResult(opener.code, opener.message, start);
  const opened = await openForReading(context, opener.open, params.path);
  if (!opened.ok) return failedResult(opened.code, opened.message, start);
  const handle = opened.handle;
  if (windowed) {
    try {
      return await readLineWindow(handle, params, context, params.path);
    } finally {
      await handle.close();
    }
  }
  const deadline = startDeadline(context.timeoutMs, context.signal);
  const output = new BoundedOutput(context.maxOutputBytes);
  let stopped: string | null = null;
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
  } catch (error) {
    return failedResult('IO_ERROR', describeError(error), start);
  } finally {
    deadline.clear();
    await handle.close();
  }
  if (stopped === 'timeout') return failedResult('TIMEOUT', `reading '${params.path}' took longer than ${context.timeoutMs} ms`, start);
  if (stopped === 'cancelled') return failedResult('CANCELLED', 'cancelled by the caller', start);
  return succeededResult(output.render(params.encoding ?? 'utf8'), start);
}

/** `read_bytes {path, offset?, length?}`: up to 8 KiB from a byte offset as a hex dump under a `[bytes A-B of N]` header. */
export async function readBytesMethod(params: { path: string; offset?: number; length?: number }, context: MethodContext): Promise<ExecutionResult> {
  const start = performance.now();
  const unsafe = rootConflict(context);
  if (unsafe) return failedResult('EXECUTOR_MISCONFIGURED', unsafe, start);
  const opener = openerOf(context);
  if (!opener.ok) return failedResult(opener.code, opener.message, start);
  const opened = await openForReading(context, opener.open, params.path);
  if (!opened.ok) return failedResult(opened.code, opened.message, start);
  try {
    return await readByteWindow(opened.handle, params, context, params.path);
  } finally {
    await opened.handle.close();
  }
}

// Opened before it is checked: a FIFO opens without blocking, and what is checked is what is read.
async function openForReading(context: MethodContext, open: OpenFile, requested: string): Promise<Opened> {
  const resolved = await resolveInsideRoot(context.root, requested, { hidden: context.hidden ?? [] });
  if (!resolved.ok) return { ok: false, code: resolved.code, message: resolved.message };
  return openRegularFile(open, resolved.root, resolved.path, requested, { flags: constants.O_RDONLY | constants.O_NONBLOCK });
}

/** Opens a path resolved inside the root, never through a symlink (`openInsideRoot`'s contract). */
type OpenFile = (root: string, path: string, requested: string, options: OpenInsideRootOptions) => Promise<FileHandle>;

/**
 * How this call opens files: as the user a root gateway's tools run as, by its helper process (review O, O5: as
 * root, `file-read` returned a 0600 root file of the workspace that every tool was refused), or as this process
 * where tools run as its user; refused where tools cannot become that user.
 */
function openerOf(context: MethodContext): { ok: true; open: OpenFile } | { ok: false; code: 'SANDBOX_UNAVAILABLE'; message: string } {
  const access = context.sandbox?.filesOf(context.root) ?? { ok: true };
  if (!access.ok) return { ok: false, code: access.code, message: `no file method runs: ${access.message}` };
  const { opener } = access;
  if (opener === undefined) return { ok: true, open: (root, path, _requested, options) => openInsideRoot(root, path, options) };
  return { ok: true, open: (root, path, requested, options) => opener.open(relative(root, path).split(sep).filter((part) => part !== ''), requested, options) };
}

/** `write_file {path, content, append?, create_dirs?, encoding?}`: writes or appends; never through a symlink. */
export async function writeFileMethod(
  params: { path: string; content: string; append?: boolean; create_dirs?: boolean; encoding?: OutputEncoding },
  context: MethodContext,
): Promise<ExecutionResult> {
  const start = performance.now();
  const unsafe = rootConflict(context);
  if (unsafe) return failedResult('EXECUTOR_MISCONFIGURED', unsafe, start);
  const opener = openerOf(context);
  if (!opener.ok) return failedResult(opener.code, opener.message, start);
  const resolved = await resolveInsideRoot(context.root, params.path, { allowMissing: true, hidden: context.hidden ?? [] });
  if (!resolved.ok) return failedResult(resolved.code, resolved.message, start);
  // what the sandbox shows read-only to processes, this method (outside the sandbox) does not write either (review N, N25)
  const readOnly = writeRefusal(resolved.path, resolved.root, context.readOnly ?? []);
  if (readOnly) return failedResult('PATH_OUTSIDE_ROOT', `path '${params.path}' is read-only for tools: ${readOnly}; write elsewhere in the workspace`, start);
  const bytes = Buffer.from(params.content, params.encoding ?? 'utf8');
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | (params.append ? constants.O_APPEND : constants.O_TRUNC);
  const opened = await openRegularFile(opener.open, resolved.root, resolved.path, params.path, { flags, mode: 0o644, createDirs: params.create_dirs === true });
  if (!opened.ok) {
    const hint = opened.errno === 'ENOENT' && !params.create_dirs ? '; set create_dirs: true to create missing folders' : '';
    return failedResult(opened.code, opened.message + hint, start);
  }
  try {
    await opened.handle.writeFile(bytes);
  } catch (error) {
    return failedResult('IO_ERROR', describeError(error), start);
  } finally {
    await opened.handle.close();
  }
  const report = { path: relative(resolved.root, resolved.path), bytes_written: bytes.length, appended: params.append === true };
  return succeededResult(boundBytes(JSON.stringify(report), context.maxOutputBytes), start);
}

/** `list_dir {path?}`: the folder's entries as JSON `[{name, type, size}]`, sorted by name; symlinks are not followed. */
export async function listDirMethod(params: { path?: string }, context: MethodContext): Promise<ExecutionResult> {
  const start = performance.now();
  const requested = params.path ?? '.';
  const unsafe = rootConflict(context);
  if (unsafe) return failedResult('EXECUTOR_MISCONFIGURED', unsafe, start);
  const opener = openerOf(context);
  if (!opener.ok) return failedResult(opener.code, opener.message, start);
  const hiddenPaths = context.hidden ?? [];
  const resolved = await resolveInsideRoot(context.root, requested, { hidden: hiddenPaths });
  if (!resolved.ok) return failedResult(resolved.code, resolved.message, start);
  let folder: FileHandle | undefined;
  try {
    folder = await opener.open(resolved.root, resolved.path, requested, { flags: constants.O_RDONLY | constants.O_DIRECTORY });
    const path = pathOfHandle(folder, resolved.path);
    // the gateway's own data is not there for tools: left out as the sandbox leaves it out of exec's view
    const names = (await readdir(path)).filter((name) => !isHiddenPath(hiddenPaths, join(resolved.path, name))).sort();
    const entries = await Promise.all(
      names.map(async (name) => {
        const info = await lstat(join(path, name));
        const type = info.isFile() ? 'file' : info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'symlink' : 'other';
        return { name, type, size: info.size };
      }),
    );
    return succeededResult(boundBytes(JSON.stringify(entries), context.maxOutputBytes), start);
  } catch (error) {
    return failedResult(refusalCode(error), describeError(error), start);
  } finally {
    await folder?.close();
  }
}

/**
 * Why no file method serves this root, or undefined: a root no local tool may run in (`/`, a system folder's holder,
 * a home folder or one holding it: review N, N19) or the tools repository itself, as the sandbox refuses it for exec.
 */
function rootConflict(context: MethodContext): string | undefined {
  const conflict = workspaceConflict(context.root) ?? (context.readOnly?.includes(context.root) ? `the workspace ${context.root} is read-only for tools (the tools repository or this gateway's own files)` : undefined);
  return conflict === undefined ? undefined : `no file method runs in this workspace: ${conflict}; set workspace_root (or HLDP_WORKSPACE; --root for hldp gatekeeper) to a project's folder`;
}

type Opened = { ok: true; handle: FileHandle } | { ok: false; code: 'IO_ERROR' | 'PATH_OUTSIDE_ROOT' | 'EXECUTOR_MISCONFIGURED'; message: string; errno?: string };

// Only regular files: a FIFO or device would block or never end, and a write would not land in a file.
async function openRegularFile(open: OpenFile, root: string, path: string, requested: string, options: OpenInsideRootOptions): Promise<Opened> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(root, path, requested, options);
    const info = await handle.stat();
    if (info.isFile()) return { ok: true, handle };
    await handle.close();
    return { ok: false, code: 'IO_ERROR', message: `'${requested}' is not a regular file${info.isDirectory() ? '; use list_dir for a folder' : ''}` };
  } catch (error) {
    await handle?.close();
    const errno = (error as NodeJS.ErrnoException).code;
    return { ok: false, code: refusalCode(error), message: describeError(error), ...(errno ? { errno } : {}) };
  }
}

// ELOOP: a symlink appeared on the way since the path was checked (O_NOFOLLOW refused to follow it)
function refusalCode(error: unknown): 'IO_ERROR' | 'PATH_OUTSIDE_ROOT' {
  return (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'PATH_OUTSIDE_ROOT' : 'IO_ERROR';
}
