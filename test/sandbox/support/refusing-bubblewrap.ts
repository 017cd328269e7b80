import { execFileSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes, in a new folder `bin`, a `bwrap` that refuses its options matching `options` (a sh case pattern, such as
 * `--bind-fd|--ro-bind-fd`) with `message` on stderr and exit 1, as a bubblewrap or a kernel that lacks them does,
 * and runs the real bubblewrap otherwise. Returns the PATH that puts it first, for PATH and HLDP_HOST_PATH.
 */
export async function refusingBubblewrap(bin: string, options: string, message: string): Promise<string> {
  const real = execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
  await mkdir(bin);
  const script = ['#!/bin/sh', 'for arg in "$@"; do', `  case $arg in ${options}) echo "${message}" >&2; exit 1;; --) break;; esac`, 'done', `exec ${real} "$@"`, ''].join('\n');
  await writeFile(join(bin, 'bwrap'), script);
  await chmod(join(bin, 'bwrap'), 0o755);
  return `${bin}:${process.env.PATH}`;
}
