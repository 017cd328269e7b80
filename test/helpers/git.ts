import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

// a fresh machine has no git identity: every commit names its author and committer explicitly
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Runs real `git` (asynchronously: a blocking call would starve an http-backend served by this process). */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, {
    cwd,
    env: { ...process.env, ...IDENTITY },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim();
}

/**
 * Removes a folder whole, trying again while something still writes in it (a sandbox launcher discarded while it set up
 * may still make a mount point for a moment). Each try is a whole removal: Node 20's `maxRetries` retries only the last
 * rmdir and never clears the folder again, so one file written after its pass fails every retry (ENOTEMPTY).
 */
export async function removeFolder(path: string, tries = 30, delayMs = 100): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await rm(path, { recursive: true, force: true });
    } catch (error) {
      if (attempt >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, attempt * delayMs));
    }
  }
}

/** A temporary folder removed by the returned cleanup. */
export async function makeTempDir(prefix = 'hldp-test-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, cleanup: () => removeFolder(path) };
}

/** Writes files (relative path → content; null deletes) into a folder. */
export async function writeFiles(root: string, files: Record<string, string | Uint8Array | null>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    if (content === null) await rm(target, { force: true, recursive: true });
    else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
  }
}

/** A new non-bare repository on branch `main`. */
export async function initRepository(path: string, options: { bare?: boolean; objectFormat?: 'sha1' | 'sha256' } = {}): Promise<string> {
  await mkdir(path, { recursive: true });
  const args = ['init', '-q', '-b', 'main'];
  if (options.bare) args.push('--bare');
  if (options.objectFormat) args.push(`--object-format=${options.objectFormat}`);
  await git(path, ...args);
  return path;
}

/** Writes the files, commits them all, and returns the new commit id. */
export async function commitFiles(repo: string, files: Record<string, string | Uint8Array | null>, message = 'change tools'): Promise<string> {
  await writeFiles(repo, files);
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '--allow-empty', '-m', message);
  return git(repo, 'rev-parse', 'HEAD');
}

/** A minimal valid `TOOL.hdlp` for a tool of that name; override any field. */
export function makeToolYaml(name: string, overrides: Record<string, string> = {}): string {
  const fields: Record<string, string> = {
    name,
    display: `工具 ${name}`,
    intent: `does ${name} things`,
    method: 'exec',
    executor: 'gatekeeper',
    params_schema: '{}',
    author: 'TEST-001',
    created: '2026-05-31',
    why: `tests need ${name}`,
    ...overrides,
  };
  return Object.entries(fields)
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n') + '\n';
}
