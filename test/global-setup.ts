import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Several test files run the real CLI (bin/hldp.js → dist/bundle/, bundled from tsc's dist/). `npm test` builds first;
// `npx vitest` alone would silently test a stale build. So before any test runs, dist/ is rebuilt when a source is newer.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The newest modification time of the files under `dir` whose names end in `extension`. */
export function newest(dir: string, extension: string): number {
  let latest = 0;
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return 0;
  }
  for (const name of names) if (name.endsWith(extension)) latest = Math.max(latest, statSync(join(dir, name)).mtimeMs);
  return latest;
}

/** Whether tsc's dist/ or the CLI's bundle (dist/bundle/) is older than a source it is built from (src/, the build config, the bundler). */
export function distIsStale(root = ROOT): boolean {
  const sources = Math.max(newest(join(root, 'src'), '.ts'), newest(join(root, 'build'), '.js'), statSync(join(root, 'tsconfig.build.json')).mtimeMs, statSync(join(root, 'tsconfig.json')).mtimeMs);
  return Math.min(newest(join(root, 'dist'), '.js'), newest(join(root, 'dist', 'bundle'), '.js')) < sources;
}

export default function setup(): void {
  if (!distIsStale()) return;
  process.stderr.write('test/global-setup: dist/ is older than src/: rebuilding it (npm run build) so the CLI tests run the code under test\n');
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
    execFileSync(process.execPath, [join(ROOT, 'build/bundle.js')], { cwd: ROOT, stdio: 'inherit' });
  } catch {
    throw new Error('dist/ is stale and the build failed: fix the type errors above (npm run build), or the CLI tests would run old code');
  }
  if (distIsStale()) throw new Error('dist/ is still older than src/ after a build: remove dist/ and run npm run build');
}
