#!/usr/bin/env node
// The CLI entry: runs the CLI's bundle (dist/bundle/, built by `npm run build`, which `npm ci` runs through the `prepare`
// script): a few files for Node to read instead of the ~600 modules of dist/ and node_modules (issue #18).
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

// In a checkout (src/ beside bin/), a change to src/ since the last build is built first under npx, and said on
// stderr otherwise (build/rebuild-if-stale.js; review R, R19); a package installed from the registry has no src/.
if (existsSync(new URL('../src/', import.meta.url)) && existsSync(new URL('../build/rebuild-if-stale.js', import.meta.url))) {
  const { rebuildIfStale } = await import('../build/rebuild-if-stale.js');
  // built only when npx (npm exec) runs hldp itself: not for a CLI a test started under `npx vitest`, which inherits npm_command
  const byNpx = process.env.npm_command === 'exec' && /^'?hldp'?(\s|$)/.test(process.env.npm_lifecycle_script ?? '');
  const stop = rebuildIfStale(fileURLToPath(new URL('..', import.meta.url)), { rebuild: byNpx });
  if (stop !== undefined) process.exit(stop);
}
const bundle = runCommonJsBundle() ?? (await import('../dist/bundle/hldp.js'));

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

/**
 * Runs the CLI's CommonJS bundle (dist/bundle/commonjs.json names it; build/bundle.js) through `vm.Script` with V8's
 * code cache for it, so that a start does not compile the bundle again (Node 20 keeps no code cache for ES modules;
 * the compile was ~13 % of the CPU `hldp serve` spends until it listens, issue #18). The cache lives in
 * dist/bundle/code-cache/, beside the code it is made from and as trusted, named after the bundle (whose name is its
 * content's hash), the command (each command's start compiles its own functions), Node's version and the
 * architecture; its header names the bundle again and holds a CRC-32 of the
 * rest, and V8 checks its own version, flags and the source's length: a cache that fails any of these is not used, and
 * a new one is written. Without the bundle (an older build), the ES module bundle is imported instead; a folder this
 * user may not write only goes without the cache.
 */
function runCommonJsBundle() {
  const folder = new URL('../dist/bundle/', import.meta.url);
  let file;
  let source;
  try {
    const { file: name } = JSON.parse(readFileSync(new URL('commonjs.json', folder), 'utf8'));
    if (typeof name !== 'string' || !/^hldp-[A-Z0-9]+\.cjs$/.test(name)) return undefined;
    // its real path, as Node's own loaders take a module's: what it requires (better-sqlite3) is found from there
    file = realpathSync(fileURLToPath(new URL(name, folder)));
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const name = file.slice(dirname(file).length + 1);
  const cacheFolder = process.env.HLDP_CODE_CACHE_DIR || fileURLToPath(new URL('code-cache/', folder));
  const command = /^[a-z][a-z-]{0,31}$/.test(process.argv[2] ?? '') ? process.argv[2] : 'other';
  const cacheFile = `${cacheFolder}/${name}.${command}.${process.version}-${process.arch}.v8`;
  const header = Buffer.from(`hldp code cache ${name}\n`);
  let cachedData;
  try {
    const kept = readFileSync(cacheFile);
    const data = kept.subarray(header.length + 4);
    if (kept.subarray(0, header.length).equals(header) && kept.length > header.length + 4 && kept.readUInt32BE(header.length) === crc32(data)) cachedData = data;
  } catch {
    // none yet
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  if (cachedData === undefined || script.cachedDataRejected) {
    // made once the process has run a while (what it compiled by then is in the cache), or as it exits if sooner
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      try {
        const data = script.createCachedData();
        const checksum = Buffer.alloc(4);
        checksum.writeUInt32BE(crc32(data));
        mkdirSync(cacheFolder, { recursive: true });
        const partial = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(partial, Buffer.concat([header, checksum, data]));
        renameSync(partial, cacheFile);
      } catch {
        // a folder this user may not write: it runs without
      }
    };
    setTimeout(write, 5000).unref();
    process.once('exit', write);
  }
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}
