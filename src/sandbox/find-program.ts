import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

// synchronous on purpose: a few stat calls take microseconds, where a queue of thread-pool jobs under load takes milliseconds
function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The program `file` names, found as `execvp` would: a name with a `/` relative to `cwd`, otherwise the first
 * executable file of that name on `PATH`. Undefined when there is none.
 */
export function findProgram(file: string, path: string | undefined, cwd: string): string | undefined {
  if (file === '') return undefined;
  if (file.includes('/')) {
    const absolute = isAbsolute(file) ? file : resolve(cwd, file);
    return isExecutableFile(absolute) ? absolute : undefined;
  }
  for (const folder of (path ?? '').split(delimiter)) {
    // an empty PATH entry means the working directory, as execvp reads it
    const candidate = join(folder === '' ? cwd : resolve(cwd, folder), file);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
