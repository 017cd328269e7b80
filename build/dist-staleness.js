// Whether dist/ (tsc's output and the CLI's bundle) is older than a source it is built from. Two readers: the prepare
// script, which npx runs whenever it installs this package from its folder (build/prepare.js), and the tests' global
// set-up (test/global-setup.ts), which rebuilds a stale dist/ before the CLI tests run bin/hldp.js.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of the files under `dir` whose names end in `extension` (0 when there are none). */
export function newest(dir, extension) {
  let latest = 0;
  let names;
  try {
    names = readdirSync(dir, { recursive: true });
  } catch {
    return 0;
  }
  for (const name of names) if (name.endsWith(extension)) latest = Math.max(latest, statSync(join(dir, name)).mtimeMs);
  return latest;
}

/** Whether tsc's dist/ or the CLI's bundle (dist/bundle/) is older than a source it is built from (src/, the build config, the bundler). */
export function distIsStale(root) {
  const sources = Math.max(newest(join(root, 'src'), '.ts'), newest(join(root, 'build'), '.js'), statSync(join(root, 'tsconfig.build.json')).mtimeMs, statSync(join(root, 'tsconfig.json')).mtimeMs);
  return Math.min(newest(join(root, 'dist'), '.js'), newest(join(root, 'dist', 'bundle'), '.js')) < sources;
}
