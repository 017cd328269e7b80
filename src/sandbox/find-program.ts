import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The program `file` names, found as `execvp` would: a name with a `/` relative to `cwd`, otherwise the first
 * executable file of that name on `PATH`. Undefined when there is none.
 */
export async function findProgram(file: string, path: string | undefined, cwd: string): Promise<string | undefined> {
  if (file === '') return undefined;
  if (file.includes('/')) {
    const absolute = isAbsolute(file) ? file : resolve(cwd, file);
    return (await isExecutableFile(absolute)) ? absolute : undefined;
  }
  for (const folder of (path ?? '').split(delimiter)) {
    // an empty PATH entry means the working directory, as execvp reads it
    const candidate = join(folder === '' ? cwd : resolve(cwd, folder), file);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
