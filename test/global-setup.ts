import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsStale as isStale } from '../build/dist-staleness.js';

// Several test files run the real CLI (bin/hldp.js → dist/bundle/, bundled from tsc's dist/). `npm test` builds first;
// `npx vitest` alone would silently test a stale build. So before any test runs, dist/ is rebuilt when a source is newer.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Whether dist/ is older than a source it is built from; `root` is this checkout unless a test gives another. */
export function distIsStale(root = ROOT): boolean {
  return isStale(root);
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
