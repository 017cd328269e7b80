import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own folder (same depth from `src/config` and `dist/config`). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The embedded default registry: this project's own `native-repo/`. */
export const DEFAULT_REPOSITORY = fileURLToPath(new URL('../../native-repo', import.meta.url));

/** The gateway config JSON Schema. */
export const CONFIG_SCHEMA_URL = new URL('../../schemas/config.schema.json', import.meta.url);

/** This package's own code and data, which no tool may change: the sandbox makes them read-only where a tool could see them. */
export const OWN_FOLDERS = ['bin', 'dist', 'node_modules', 'schemas', 'native-repo', 'src'].map((folder) => join(PACKAGE_ROOT, folder));
