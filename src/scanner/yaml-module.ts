import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

const require = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded at its first use: most definitions are read by the fast reader and a start from a
 * warm cache parses none, so no start pays its ~70 CommonJS files up front (issue #18). It is CommonJS, so it is
 * required synchronously and the parsers stay synchronous; it is the same module an `import` would give.
 */
export function yamlModule(): typeof Yaml {
  yaml ??= require('yaml') as typeof Yaml;
  return yaml;
}
