import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Diagnostic } from '../../core/index.js';
import { tooLargeMessage } from '../yaml-mapping.js';

/**
 * Reads a file only if it is within `limit` bytes, judged by the open file's size before any byte is read.
 * Symlinks are not followed; a file that grows while it is read is reported, never cut short.
 */
export async function readBounded(path: string, limit: number, at: { file: string; line: number; column: number }, label = 'TOOL.hdlp'): Promise<Buffer | Diagnostic> {
  const notAFile = { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${label} must be a regular file (not a symlink, folder or device)` } as const;
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    // O_NOFOLLOW on a symlink, dangling or not: reported for this file, never thrown past the others' report
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return notAFile;
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return notAFile;
    if (stats.size > limit) return { ...at, severity: 'error', code: 'FILE_TOO_LARGE', message: tooLargeMessage(stats.size, limit, label) };
    // one byte more than its size: a file that grew while being read is noticed
    const buffer = Buffer.alloc(stats.size + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    if (filled > stats.size) return { ...at, severity: 'error', code: 'READ_FAILED', message: `${label} changed while it was read; scan again` };
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** The git blob id of some content, so folder and git sources identify tools the same way. */
export function blobOid(content: Uint8Array): string {
  return createHash('sha1').update(`blob ${content.byteLength}\0`).update(content).digest('hex');
}
