import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { track } from '../helpers/run-cli.js';
import { SERVE_ANNOUNCE } from '../helpers/serve-process.js';

// `npm run build` in a checkout whose `hldp serve` is running: the server imports parts of its bundle when first needed
// (the MCP front among them), so a rebuild that removed or renamed them under it left /mcp answering 500 until a restart
// (review H F3). Each test works on a copy of the package (tsc's dist/ copied, node_modules linked), rebuilt by the
// real build/bundle.js.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const execFileAsync = promisify(execFile);

// The package copied and built once (the first build every test starts from): each test gets a copy of it, its
// dist/bundle/ and builds.json included, which is what a build in the test's own copy would write (the bundle names
// node_modules by its real path, the same from every copy).
let built: { path: string; cleanup: () => Promise<void> };
let temp: { path: string; cleanup: () => Promise<void> };
let copy: string;
beforeAll(async () => {
  built = await makeTempDir();
  const template = join(built.path, 'package');
  for (const part of ['package.json', 'bin', 'build', 'schemas', 'native-repo', 'assets']) cpSync(join(ROOT, part), join(template, part), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(template, 'dist'), { recursive: true, filter: (source) => !source.startsWith(join(ROOT, 'dist/bundle')) });
  symlinkSync(join(ROOT, 'node_modules'), join(template, 'node_modules'));
  await execFileAsync(process.execPath, ['build/bundle.js'], { cwd: template });
}, 120_000);
afterAll(() => built.cleanup());
beforeEach(async () => {
  temp = await makeTempDir();
  copy = join(temp.path, 'package');
  cpSync(join(built.path, 'package'), copy, { recursive: true, verbatimSymlinks: true });
});
afterEach(() => temp.cleanup());

/** Changes a module the server loads only when an MCP client first connects, so its chunk gets another name. */
async function changeLazyModule(mark: number): Promise<void> {
  await appendFile(join(copy, 'dist/mcp-front/create-mcp-server.js'), `\nglobalThis.hldpBuildMark = ${mark};\n`);
}

const rebuild = () => execFileAsync(process.execPath, ['build/bundle.js'], { cwd: copy });
const bundleFiles = () => readdirSync(join(copy, 'dist/bundle')).sort();

function serve(): Promise<{ url: string; stop: () => void; stderr: () => string; pid: number; kill: () => Promise<void> }> {
  const env = { ...process.env, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn' };
  const child = track(spawn(process.execPath, [join(copy, 'bin/hldp.js'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = SERVE_ANNOUNCE.exec(stderr);
      const kill = () => new Promise<void>((done) => (child.once('exit', () => done()), child.kill('SIGKILL')));
      if (match) resolve({ url: match[1]!, stop: () => child.kill('SIGTERM'), stderr: () => stderr, pid: child.pid!, kill });
    });
    child.once('exit', (code) => reject(new Error(`hldp serve exited ${code} before listening:\n${stderr}`)));
  });
}

async function initialize(url: string): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }),
  });
}

/** The server's /mcp answers an initialize: the MCP front, imported only now, loads from the build it started from. */
async function expectMcpAnswers(server: { url: string; stderr: () => string }): Promise<void> {
  const answer = await initialize(server.url);
  expect(answer.status, server.stderr()).toBe(200);
  expect(await answer.text()).toContain('serverInfo');
}

describe('a rebuild of the bundle', () => {
  it('leaves a running server able to load the parts it had not loaded yet, and counts a rebuild of unchanged code as the same build, so the one a server started from stays (review I F1)', async () => {
    const server = await serve();
    try {
      // one changed build under the running server (main before H F3: /mcp 500 from here on)
      await changeLazyModule(1);
      await rebuild();
      // npm test rebuilds at every run: two rebuilds that change nothing must not push the server's build out
      await rebuild();
      await rebuild();
      const listed = JSON.parse(readFileSync(join(copy, 'dist/bundle/builds.json'), 'utf8')) as string[][];
      expect(listed).toHaveLength(2);
      await expectMcpAnswers(server);
    } finally {
      server.stop();
    }
  }, 240_000);

  it('keeps the build a running server started from however many builds come after it, and lets it go once the server is gone (review I S4)', async () => {
    const first = bundleFiles();
    const server = await serve();
    try {
      // a developer's edit-and-test loop: four changed builds while the server runs (main: its chunks removed at the
      // fourth, /mcp 500)
      for (let mark = 1; mark <= 4; mark += 1) {
        await changeLazyModule(mark);
        await rebuild();
      }
      await expectMcpAnswers(server);
      // the server records the build it runs from while it lives, and that build is listed beside the last three
      expect(readdirSync(join(copy, 'dist/bundle/running'))).toContain(String(server.pid));
      const listed = JSON.parse(readFileSync(join(copy, 'dist/bundle/builds.json'), 'utf8')) as string[][];
      expect(listed).toHaveLength(4);
    } finally {
      // killed outright: its record stays, and the next build finds its process gone
      await server.kill();
    }
    await changeLazyModule(5);
    await rebuild();
    const listed = JSON.parse(readFileSync(join(copy, 'dist/bundle/builds.json'), 'utf8')) as string[][];
    expect(listed).toHaveLength(3);
    expect(readdirSync(join(copy, 'dist/bundle/running'))).not.toContain(String(server.pid));
    const gone = first.filter((name) => !listed.flat().includes(name) && name !== 'builds.json' && name !== 'commonjs.json');
    expect(gone.length).toBeGreaterThan(0);
    for (const name of gone) expect(existsSync(join(copy, 'dist/bundle', name))).toBe(false);
  }, 300_000);

  it('leaves a build stopped before its list is written unrun, so no server runs files the next build removes (review I F2)', async () => {
    await changeLazyModule(1);
    // a directory where the list's temporary file goes stops the build there, as a kill or a full disk would
    mkdirSync(join(copy, 'dist/bundle/builds.json.tmp'));
    await expect(rebuild()).rejects.toThrow();
    rmSync(join(copy, 'dist/bundle/builds.json.tmp'), { recursive: true });
    const server = await serve();
    try {
      await changeLazyModule(2);
      await rebuild();
      await expectMcpAnswers(server);
    } finally {
      server.stop();
    }
  }, 240_000);

  it('keeps the files of the last three builds and removes older ones', async () => {
    const first = bundleFiles();
    const builds: string[][] = [first];
    for (let mark = 1; mark <= 3; mark += 1) {
      await changeLazyModule(mark);
      await rebuild();
      builds.push(bundleFiles());
    }
    const listed = JSON.parse(readFileSync(join(copy, 'dist/bundle/builds.json'), 'utf8')) as string[][];
    expect(listed).toHaveLength(3);
    // every file of the three builds listed is there, and nothing else but the list itself
    expect(bundleFiles()).toEqual([...new Set(['builds.json', 'commonjs.json', ...listed.flat()])].sort());
    // the first build's chunk that changed since is gone; the entry and the unchanged chunks stay
    const goneOfFirst = first.filter((name) => !listed.flat().includes(name) && name !== 'builds.json' && name !== 'commonjs.json');
    expect(goneOfFirst.length).toBeGreaterThan(0);
    for (const name of goneOfFirst) expect(existsSync(join(copy, 'dist/bundle', name))).toBe(false);
    expect(existsSync(join(copy, 'dist/bundle/hldp.js'))).toBe(true);
    // no file written half: no temporary file is left
    expect(bundleFiles().filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 240_000);

  it('names the worker threads’ entries by their content, as the code that starts them does', () => {
    const workers = bundleFiles().filter((name) => /^(parse|lexicon)-worker-[A-Z0-9]+\.js$/.test(name));
    expect(workers).toHaveLength(2);
    const code = bundleFiles()
      .filter((name) => name.endsWith('.js') && !workers.includes(name))
      .map((name) => readFileSync(join(copy, 'dist/bundle', name), 'utf8'))
      .join('\n');
    for (const worker of workers) expect(code).toContain(`./${worker}`);
    expect(code).not.toMatch(/["']\.\/(parse|lexicon)-worker\.js["']/);
  }, 120_000);
});
