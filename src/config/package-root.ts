import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own folder (same depth from `src/config` and `dist/config`). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The embedded default registry: this project's own `native-repo/`. */
export const DEFAULT_REPOSITORY = fileURLToPath(new URL('../../native-repo', import.meta.url));

/** The gateway config JSON Schema. */
export const CONFIG_SCHEMA_URL = new URL('../../schemas/config.schema.json', import.meta.url);

/**
 * This package's own code and data, which no tool may change: the sandbox makes them read-only where a tool could
 * see them. Every entry of the package's folder, not only the code: where the workspace is a clone of this project
 * (`npx hldp serve` in it, the README's quick start), its `.git` (hooks, config), `package.json`, `.ci/run` and tests
 * are what a person or CI runs next, outside any sandbox (review K, K19).
 */
export const OWN_FOLDERS = ownEntries();

function ownEntries(): string[] {
  const known = ['bin', 'dist', 'node_modules', 'schemas', 'native-repo', 'src'];
  try {
    return [...new Set([...known, ...readdirSync(PACKAGE_ROOT)])].map((entry) => join(PACKAGE_ROOT, entry));
  } catch {
    return known.map((entry) => join(PACKAGE_ROOT, entry));
  }
}
