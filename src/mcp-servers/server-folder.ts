import { createHash } from 'node:crypto';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A stdio server's default working folder, `<folder>/<name>`, made now if it is not there: the gateway's own, open
 * to read (0755) and to nobody else to write. npx resolves a package from its working folder's node_modules first,
 * `python -m` imports from it, a relative script is read from it: were it the workspace, any tool that writes there
 * would choose what runs in the server's place, with its secrets and network (review S, S3). Its real path; throws,
 * naming the fix, when what is there is not such a folder.
 */
export async function serverFolder(folder: string, name: string): Promise<string> {
  const path = join(folder, folderName(name));
  await mkdir(folder, { recursive: true, mode: 0o755 });
  try {
    await mkdir(path, { mode: 0o755 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const info = await lstat(path);
  const uid = process.getuid?.();
  const problem = !info.isDirectory()
    ? 'is not a folder (a symlink or a file)'
    : uid !== undefined && info.uid !== uid
      ? `belongs to uid ${info.uid}, not to the gateway's user (uid ${uid})`
      : (info.mode & 0o022) !== 0
        ? `may be written by others (mode ${(info.mode & 0o777).toString(8)})`
        : undefined;
  if (problem !== undefined) {
    throw Object.assign(new Error(`its working folder ${path} ${problem}; remove it (the gateway makes it again, empty and its own) or set mcp_servers.${name}.cwd`), { code: 'EXECUTOR_MISCONFIGURED' });
  }
  return realpath(path);
}

// a server's name as one folder name: kept where it is plain, else made so and told apart by its digest
function folderName(name: string): string {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(name)) return name;
  return `${name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 48)}-${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}
