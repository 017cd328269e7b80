import { createRequire } from 'node:module';
import type * as AjvModule from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
let loaded: typeof AjvModule | undefined;

/**
 * ajv's JSON Schema 2020-12 class, loaded at its first use: a server that starts from a warm cache parses no
 * definition before it listens, so it does not pay ajv's ~80 CommonJS files then (issue #18); the first parse, a
 * checker's compile or the warm-up after listening loads it. CommonJS, so required synchronously: the same module
 * an `import` would give, and the parsers stay synchronous.
 */
export function ajv2020(): typeof AjvModule.Ajv2020 {
  loaded ??= require('ajv/dist/2020.js') as typeof AjvModule;
  return loaded.Ajv2020;
}
