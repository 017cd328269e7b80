#!/usr/bin/env node
// The CLI entry: runs the CLI's bundle (dist/bundle/, built by `npm run build`, which `npm ci` runs through the `prepare`
// script): a few files for Node to read instead of the ~600 modules of dist/ and node_modules (issue #18).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// In a checkout (src/ beside bin/), a change to src/ since the last build is built first under npx, and said on
// stderr otherwise (build/rebuild-if-stale.js; review R, R19); a package installed from the registry has no src/.
if (existsSync(new URL('../src/', import.meta.url)) && existsSync(new URL('../build/rebuild-if-stale.js', import.meta.url))) {
  const { rebuildIfStale } = await import('../build/rebuild-if-stale.js');
  // built only when npx (npm exec) runs hldp itself: not for a CLI a test started under `npx vitest`, which inherits npm_command
  const byNpx = process.env.npm_command === 'exec' && /^'?hldp'?(\s|$)/.test(process.env.npm_lifecycle_script ?? '');
  const stop = rebuildIfStale(fileURLToPath(new URL('..', import.meta.url)), { rebuild: byNpx });
  if (stop !== undefined) process.exit(stop);
}
const bundle = await import('../dist/bundle/hldp.js');

keepBuildWhileRunning(bundle.HLDP_BUILD);
sayIfNpxRebuilt();

bundle.main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`hldp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);

/**
 * Records the build this process runs from in dist/bundle/running/<pid> until it exits: a rebuild keeps the files of
 * every build a living process recorded (build/bundle.js), so the parts it imports only when first needed (the MCP
 * front, the worker threads) are still there however many builds came since. A package folder this user may not
 * write (installed by another) is not rebuilt under it either: then nothing is recorded.
 */
function keepBuildWhileRunning(build) {
  if (typeof build !== 'string') return;
  const folder = new URL('../dist/bundle/running/', import.meta.url);
  const record = new URL(String(process.pid), folder);
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(record, build);
  } catch {
    return;
  }
  // a process killed outright leaves its record: a build removes those whose process is gone
  process.on('exit', () => {
    try {
      rmSync(record, { force: true });
    } catch {
      // left for the next build to remove
    }
  });
}

/**
 * Says once, on stderr, that npx rebuilt dist/ before this run (build/announce-build.js leaves the record): the minute
 * the first `npx hldp` after a source change took was npm's prepare script, whose output npm hides (review N, N9).
 */
function sayIfNpxRebuilt() {
  const record = new URL('../dist/rebuilt-by-npx', import.meta.url);
  let at;
  try {
    at = readFileSync(record, 'utf8').trim();
    rmSync(record, { force: true });
  } catch {
    return;
  }
  process.stderr.write(`hldp: npx rebuilt dist/ before this run (started ${at}: src/ had changed since the last build, and npm runs the prepare script, tsc then the bundle, without showing it); run \`npm run build\` after a change to build ahead, or start node bin/hldp.js\n`);
}
