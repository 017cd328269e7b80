#!/usr/bin/env node
// The CLI entry: runs the CLI's bundle (dist/bundle/, built by `npm run build`, which `npm ci` runs through the `prepare`
// script): a few files for Node to read instead of the ~600 modules of dist/ and node_modules (issue #18).
import { isAscii } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
 * dist/bundle/code-cache/ (or HLDP_CODE_CACHE_DIR), named after the bundle (whose name is its content's hash), the
 * command (each command's start compiles its own functions), Node's version and the architecture.
 * A cache is code: V8 checks only its own version, flags and the source's LENGTH, never that the code is the source's,
 * so whoever can write a cache runs code as the next user to start hldp (review Z2, Z2-1). It is trusted exactly as far
 * as its folder's owner: one is used only where this process's euid owns the bundle, the folder (no symlink) and the
 * file (opened with O_NOFOLLOW), and neither folder nor file is group- or world-writable (like ssh's StrictModes);
 * else the bundle runs without one. Its header names the bundle and holds a SHA-256 of the source and a CRC-32 of the
 * rest: guards against accidents (another build's cache, a torn file), not against a writer. A new one is written to a
 * random name created exclusively (0600, in a 0700 folder), then renamed. Without the bundle (an older build), the ES
 * module bundle is imported instead.
 */
function runCommonJsBundle() {
  // the CLI's commands, as src/cli/commands/index.ts lists them: a code cache is kept for these only
  const COMMAND_NAMES = ['serve', 'scan', 'list', 'match', 'call', 'confirm', 'approvals', 'receipts', 'suggest', 'tail', 'validate', 'gatekeeper', 'mcp', 'export', 'import'];
  const folder = new URL('../dist/bundle/', import.meta.url);
  let file;
  let bytes;
  let source;
  let bundleOwner;
  try {
    const { file: name } = JSON.parse(readFileSync(new URL('commonjs.json', folder), 'utf8'));
    if (typeof name !== 'string' || !/^hldp-[A-Z0-9]+\.cjs$/.test(name)) return undefined;
    // its real path, as Node's own loaders take a module's: what it requires (better-sqlite3) is found from there
    file = realpathSync(fileURLToPath(new URL(name, folder)));
    const fd = openSync(file, 'r');
    try {
      bundleOwner = fstatSync(fd).uid;
      bytes = readFileSync(fd);
      // the build writes it ASCII only (build/bundle.js): read as latin1, a one-byte string, ~4 ms of CPU, where UTF-8
      // decoding took ~20 ms and made a two-byte string of twice its size (issue #18); an older build's, as UTF-8
      source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const script = (cachedData) => new vm.Script(Module.wrap(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  const run = (made) => {
    const module = { exports: {} };
    made.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
    return module.exports;
  };
  const euid = process.geteuid?.();
  // a bundle another user owns (a package installed by root, run by a user): no cache, which would be only as trusted as its writer
  const fromEnv = process.env.HLDP_CODE_CACHE_DIR;
  if (euid === undefined || bundleOwner !== euid) {
    // said only to whoever named a folder: the variable does nothing here (review userZ2, U4)
    if (fromEnv && euid !== undefined) process.stderr.write(`hldp: HLDP_CODE_CACHE_DIR is not used: the bundle ${file} is owned by uid ${bundleOwner}, not by this user (uid ${euid}), and a code cache is trusted only as far as the bundle: running without a code cache\n`);
    return run(script());
  }
  const name = file.slice(dirname(file).length + 1);
  const cacheFolder = fromEnv || fileURLToPath(new URL('code-cache/', folder));
  const trusted = (stats) => stats.uid === euid && (stats.mode & 0o022) === 0;
  /** Why the folder is not trusted, with what would make it so (review userZ2, U3), or undefined when it is. */
  const distrust = (stats) => {
    const quoted = JSON.stringify(cacheFolder);
    if (stats.isSymbolicLink()) {
      let target = '';
      try {
        target = ` (to ${JSON.stringify(realpathSync(cacheFolder))})`;
      } catch {
        // a dangling link: its target is not said
      }
      return `is a symbolic link${target}, which is not followed: point HLDP_CODE_CACHE_DIR at the folder itself`;
    }
    if (!stats.isDirectory()) return 'is not a folder: point HLDP_CODE_CACHE_DIR at a folder of this user\'s';
    if (stats.uid !== euid) return `is owned by uid ${stats.uid}, not by this user (uid ${euid}): chown ${euid} ${quoted}, or point HLDP_CODE_CACHE_DIR at a folder of this user's`;
    if ((stats.mode & 0o022) !== 0) return `is writable by ${stats.mode & 0o020 ? (stats.mode & 0o002 ? 'group and others' : 'group') : 'others'} (mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')}): chmod 700 ${quoted}`;
    return undefined;
  };
  let why;
  const folderState = () => {
    try {
      why = distrust(lstatSync(cacheFolder));
      return why === undefined ? 'trusted' : 'untrusted';
    } catch (error) {
      // not there, or under a file (ENOTDIR), as before: gone without a word
      why = undefined;
      return error.code === 'ENOENT' ? 'none' : 'untrusted';
    }
  };
  const state = folderState();
  if (state === 'untrusted') {
    if (fromEnv && why !== undefined) process.stderr.write(`hldp: HLDP_CODE_CACHE_DIR ${JSON.stringify(cacheFolder)} ${why}; running without a code cache\n`);
    return run(script());
  }
  // one cache a command the CLI has (src/cli/commands/index.ts, checked by test/cli/code-cache.test.ts), one for no
  // command or a flag (--help, --version); a misspelt command writes none (review userZ2, U5: 0.77 MB each)
  const word = process.argv[2] ?? '';
  if (/^[^-]/.test(word) && !COMMAND_NAMES.includes(word)) return run(script());
  const command = COMMAND_NAMES.includes(word) ? word : 'other';
  const cacheFile = `${cacheFolder}/${name}.${command}.${process.version}-${process.arch}.v8`;
  // of the bytes read (~5 ms of CPU for the 7.6 MB bundle; of the string, re-encoded, ~30 ms)
  const header = Buffer.from(`hldp code cache ${name} ${createHash('sha256').update(bytes).digest('hex')}\n`);
  let cachedData;
  if (state === 'trusted') {
    try {
      const fd = openSync(cacheFile, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const stats = fstatSync(fd);
        if (stats.isFile() && trusted(stats)) {
          const kept = readFileSync(fd);
          const data = kept.subarray(header.length + 4);
          if (kept.subarray(0, header.length).equals(header) && kept.length > header.length + 4 && kept.readUInt32BE(header.length) === crc32(data)) cachedData = data;
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      // none yet, or a symlink (ELOOP): written anew
    }
  }
  const made = script(cachedData);
  if (cachedData === undefined || made.cachedDataRejected) {
    // made once the process has run a while (what it compiled by then is in the cache), or as it exits if sooner
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      let partial;
      try {
        const data = made.createCachedData();
        const checksum = Buffer.alloc(4);
        checksum.writeUInt32BE(crc32(data));
        mkdirSync(cacheFolder, { recursive: true, mode: 0o700 });
        if (folderState() !== 'trusted') return;
        // a name no one can guess, created here (O_EXCL: a symlink planted there is not followed), only this user's
        const name = `${cacheFile}.${randomBytes(8).toString('hex')}.tmp`;
        const fd = openSync(name, 'wx', 0o600);
        partial = name;
        try {
          writeFileSync(fd, Buffer.concat([header, checksum, data]));
        } finally {
          closeSync(fd);
        }
        renameSync(partial, cacheFile);
        partial = undefined;
      } catch {
        // a folder this user may not write: it runs without
      } finally {
        try {
          if (partial !== undefined) rmSync(partial, { force: true });
        } catch {
          // left for the next build, which empties the folder
        }
      }
    };
    setTimeout(write, 5000).unref();
    process.once('exit', write);
  }
  return run(made);
}
