import Module, { createRequire } from 'node:module';

// Module's CommonJS cache, which `require` consults before it reads a file; not in @types/node's class declaration
const cache = (Module as unknown as { _cache: Record<string, NodeJS.Module> })._cache;

/** A CommonJS dependency of express's that `hldp serve` defers, and the shape of what it exports. */
interface Deferred {
  name: string;
  /** the module's own exported names (read through to the module once it is loaded) */
  keys: readonly string[];
  /** the module's export is a function (called through to the module once it is loaded) */
  callable?: boolean;
}

// what express and body-parser require as they load, and only some requests use: qs (with get-intrinsic, side-channel
// and object-inspect, ~20 files) for urlencoded bodies (the console's forms) and extended query strings, which the API
// does not parse; send for files sent from disk, which no route sends. Not mime-types: every JSON answer names its
// content type through it, so deferred it loaded on a server's first request instead
const DEFERRED: readonly Deferred[] = [
  { name: 'qs', keys: ['formats', 'parse', 'stringify'] },
  { name: 'send', keys: [], callable: true },
];

/**
 * Before express is first loaded (issue #18): its dependencies above are required as express loads, but used only
 * by requests, so each is entered in the CommonJS cache as a stand-in that loads the real module on its first use
 * (a property read, or a call) and reads and calls through to it from then on. A server then listens, and answers its
 * API, without their ~30 files; the console's first form loads qs. A module already loaded, or one express no longer
 * resolves, is left as it is.
 */
export function deferExpressModules(): void {
  const fromExpress = createRequire(createRequire(import.meta.url).resolve('express'));
  for (const deferred of DEFERRED) {
    let path: string;
    try {
      path = fromExpress.resolve(deferred.name);
    } catch {
      continue;
    }
    if (cache[path]) continue;
    standIn(path, deferred);
  }
}

function standIn(path: string, deferred: Deferred): void {
  const standing = new Module(path);
  standing.filename = path;
  standing.loaded = true;
  let real: unknown;
  const load = (): unknown => {
    if (real === undefined) {
      // read with the stand-in out of the way: later requires get the real module; a load that failed leaves the
      // stand-in, so the next use tries again
      delete cache[path];
      try {
        real = createRequire(path)(path);
      } finally {
        cache[path] ??= standing;
      }
    }
    return real;
  };
  const exported: Record<string, unknown> = deferred.callable ? function deferredCall(this: unknown, ...args: unknown[]): unknown {
    return (load() as (...args: unknown[]) => unknown).apply(this, args);
  } as unknown as Record<string, unknown> : {};
  for (const key of deferred.keys) Object.defineProperty(exported, key, { enumerable: true, get: () => (load() as Record<string, unknown>)[key] });
  standing.exports = exported;
  cache[path] = standing;
}
