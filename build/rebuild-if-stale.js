// What bin/hldp.js does first in a checkout (review R, R19): npx installs this package from its folder once per npm
// cache (a link in ~/.npm/_npx/) and runs the prepare script only then, so every later `npx hldp` after a change to
// src/ ran the old dist/ without a word. So the CLI itself compares the sources with its build: under npx it builds
// again first and says so on stderr; started as `node bin/hldp.js` (a supervisor, a test) it runs the build there is
// and says on stderr that src/ changed. A cheap check: one walk of src/ and build/, stopped at the first newer file
// (2-7 ms of CPU); a package installed from the registry has no src/ and is not checked at all.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// the build's entry, written last by build/bundle.js: its time is the build's
const ENTRY = 'dist/bundle/hldp.js';
const LOCK = 'dist/rebuilding';
// a lock older than this is taken as left by a killed build
const LOCK_STALE_MS = 15 * 60_000;

/** The first source of the build (src/**.ts, build/**.js, the tsconfig files) newer than `since`, or undefined. */
export function sourceNewerThan(root, since) {
  for (const name of ['tsconfig.json', 'tsconfig.build.json']) {
    const path = join(root, name);
    if (modified(path) > since) return path;
  }
  for (const [folder, extension] of [['src', '.ts'], ['build', '.js']]) {
    let entries;
    try {
      entries = readdirSync(join(root, folder), { recursive: true, withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith(extension)) continue;
      const path = join(entry.parentPath ?? entry.path, entry.name);
      if (modified(path) > since) return path;
    }
  }
  return undefined;
}

function modified(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

const when = (ms) => (ms > 0 ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : 'never');
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Builds dist/ again when a source is newer than it (under npx), or says on stderr that it is stale (otherwise).
 * Returns an exit status to stop with (the build failed), or undefined to go on and run the CLI.
 */
export function rebuildIfStale(root, { rebuild, write = (text) => process.stderr.write(text) }) {
  const built = modified(join(root, ENTRY));
  const changed = sourceNewerThan(root, built);
  if (changed === undefined) return undefined;
  const what = `${relative(root, changed)} changed since the last build (${when(built)})`;
  if (!rebuild) {
    write(`hldp: ${what}: running that older build; run \`npm run build\` to run your change\n`);
    return undefined;
  }
  if (!takeLock(root, write)) {
    // another hldp built meanwhile: run its build, or say the sources are newer still
    return rebuildIfStale(root, { rebuild: false, write });
  }
  try {
    // another hldp may have built while this one waited for the lock
    if (sourceNewerThan(root, modified(join(root, ENTRY))) === undefined) return undefined;
    write(`hldp: ${what}: building dist/ again first (tsc, then the bundle: a minute or more; \`npm run build\` after a change builds ahead)\n`);
    const started = Date.now();
    // the build's own output goes to stderr: stdout is the command's (--json, the MCP stdio protocol)
    const options = { cwd: root, stdio: ['ignore', 2, 2] };
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')], options);
    const bundle = tsc.status === 0 ? spawnSync(process.execPath, [join(root, 'build/bundle.js')], options) : undefined;
    if (tsc.status !== 0 || bundle?.status !== 0) {
      write(`hldp: the build failed (${tsc.status !== 0 ? 'tsc' : 'the bundle'}, above): fix it and run \`npm run build\`; nothing was run\n`);
      return 2;
    }
    write(`hldp: built in ${((Date.now() - started) / 1000).toFixed(0)} s; running your change\n`);
    return undefined;
  } finally {
    rmSync(join(root, LOCK), { force: true });
  }
}

// One build at a time: a second `npx hldp` started meanwhile waits for the first's build (two tsc runs writing the
// same files would let the bundler read a half-written one). False when the checkout is not this user's to write.
function takeLock(root, write) {
  const lock = join(root, LOCK);
  let said = false;
  for (;;) {
    try {
      mkdirSync(join(root, 'dist'), { recursive: true });
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if (error.code !== 'EEXIST') return false;
    }
    if (!lockHolderLives(lock)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (!said) write(`hldp: another hldp (pid ${readLock(lock)}) is building dist/: waiting for it\n`);
    said = true;
    sleep(250);
  }
}

function readLock(lock) {
  try {
    return readFileSync(lock, 'utf8').trim();
  } catch {
    return '';
  }
}

function lockHolderLives(lock) {
  const pid = Number(readLock(lock));
  // just made, its pid not written yet — unless it is that old
  if (!Number.isInteger(pid) || pid <= 0) return Date.now() - modified(lock) < LOCK_STALE_MS && modified(lock) > 0;
  try {
    process.kill(pid, 0);
    return Date.now() - modified(lock) < LOCK_STALE_MS;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
