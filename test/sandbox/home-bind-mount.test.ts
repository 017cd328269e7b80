// Review V, V5: the home guard knew homes by path, so a second view of a home — a bind of /home on a data disk, of a
// home's dot-folder into a service's folder — was an ordinary folder to it: `hldp validate` said 0 errors and the
// tool read the key in the dot-folder and planted a file there. Here a private mount namespace (unshare -m: nothing
// changes outside it) gives /home a home alice with a dot-folder, and /srv three views: /srv/homes (a bind of /home),
// /srv/keys (a bind of alice's dot-folder) and /srv/plain (a bind of a folder that is no home's, which stays allowed).
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN } from '../helpers/run-cli.js';
import { describeNeeding, giveToNobody, ROOT } from './support/bubblewrap.js';

// a private mount namespace, where root may mount: util-linux's unshare, as .ci/run's Debian has it
const UNSHARE = { part: 'unshare -m (util-linux)', present: ROOT.present && spawnSync('unshare', ['-m', 'true']).status === 0, provided: 'Debian ships util-linux, and CI runs as root' };
const KEYS = '/home/alice/.keys';

const tool = (name: string, declared: string, script: string): string =>
  makeToolYaml(name, { method: 'run', executor: 'shell', shell: `\n  script: '${script}'`, sandbox: `\n  filesystem:\n    ${declared}` });

const TOOLS = {
  'tools/plant-key/TOOL.hdlp': tool('plant-key', 'write: [/srv/homes/alice/.keys]', 'cat /srv/homes/alice/.keys/id_key; echo planted > /srv/homes/alice/.keys/planted'),
  'tools/peek-keys/TOOL.hdlp': tool('peek-keys', 'read: [/srv/keys]', 'cat /srv/keys/id_key'),
  'tools/read-homes/TOOL.hdlp': tool('read-homes', 'read: [/srv/homes]', 'cat /srv/homes/alice/.keys/id_key'),
  'tools/read-plain/TOOL.hdlp': tool('read-plain', 'read: [/srv/plain]', 'cat /srv/plain/note'),
  'tools/plant-dot/TOOL.hdlp': makeToolYaml('plant-dot', { method: 'run', executor: 'shell', shell: `\n  script: 'echo planted > .bashrc; ls -A'` }),
};

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let env: NodeJS.ProcessEnv;

// runs `commands` as root in a new mount namespace holding the homes and views above; its stdout and stderr
function inNamespace(commands: string): Promise<string> {
  const setup = [
    'set -u',
    'mount --make-rprivate /',
    'mount -t tmpfs hldp-test-homes /home',
    `mkdir -p ${KEYS} && echo "KEY of alice" > ${KEYS}/id_key`,
    // nobody, whom a root gateway runs tools as, may read and write it: only the guard stands in the way
    `chown -R 65534:65534 ${KEYS}`,
    'mount -t tmpfs hldp-test-views /srv && mkdir /srv/homes /srv/keys /srv/plain',
    `mount --bind /home /srv/homes && mount --bind ${KEYS} /srv/keys && mount --bind ${join(temp.path, 'plain')} /srv/plain`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['-m', 'sh', '-c', `${setup}\n${commands}`], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', () => resolve(output));
  });
}

const hldp = (args: string): string => `'${process.execPath}' '${HLDP_BIN}' ${args}`;

describeNeeding([ROOT, UNSHARE], 'the home guard, where the host mounts a home twice', () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await chmod(temp.path, 0o755);
    await mkdir(join(temp.path, 'plain'));
    await writeFile(join(temp.path, 'plain', 'note'), 'a shared note\n');
    await mkdir(join(temp.path, 'workspace'));
    await giveToNobody(join(temp.path, 'workspace'));
    repo = await initRepository(join(temp.path, 'repo'));
    await commitFiles(repo, TOOLS);
    env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_LOG_LEVEL: 'warn', HOME: '/root' };
  });
  afterAll(() => temp?.cleanup());

  it('hldp validate refuses each declaration reaching a home through another view, and only those', async () => {
    const output = await inNamespace(`${hldp(`validate '${repo}'`)}; echo "exit $?"`);
    expect(output).toMatch(/plant-key\/TOOL\.hdlp:\d+:\d+: error: .*'\/srv\/homes\/alice\/\.keys', a dot-entry of the home folder \/home\/alice .*\/srv\/homes\/alice is \/home\/alice under another path/);
    expect(output).toMatch(/peek-keys\/TOOL\.hdlp:\d+:\d+: error: .*'\/srv\/keys', a dot-entry of the home folder \/home\/alice .*\/srv\/keys is \/home\/alice\/\.keys under another path/);
    expect(output).toMatch(/read-homes\/TOOL\.hdlp:\d+:\d+: error: .*'\/srv\/homes', which is or holds the home folder \/home\/alice/);
    expect(output).not.toMatch(/read-plain/);
    expect(output).toMatch(/3 error\(s\)[^]*exit 1/);
  });

  it('a call refuses to run such a tool, which reads no key and plants nothing; a view of another folder still runs', async () => {
    const output = await inNamespace(
      [...['plant-key', 'peek-keys', 'read-homes', 'read-plain'].map((name) => `echo "== ${name}"; ${hldp(`call ${name} --repo '${repo}'`)}`), `echo "== left"; ls -A ${KEYS}`].join('\n'),
    );
    const parts = Object.fromEntries(output.split(/^== /m).slice(1).map((part) => [part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1)]));
    for (const name of ['plant-key', 'peek-keys', 'read-homes']) {
      expect(parts[name], name).toMatch(/\[FAILED SANDBOX_UNAVAILABLE\]/);
      expect(parts[name], name).not.toContain('KEY of alice');
    }
    expect(parts['read-plain']).toContain('a shared note');
    expect(parts['left']?.trim()).toBe('id_key');
  });

  // the workspace was judged by path alone: a root gateway given a view of alice's home as its workspace handed the
  // home to nobody (its owner changed) and its tools wrote her dot-files; one holding a view of her dot-folder, likewise
  it('refuses a workspace that is, or holds, a view of a home or of its dot-folder, and gives it to no one', async () => {
    const call = (workspace: string): string => `echo "== ${workspace}"; HLDP_WORKSPACE=${workspace} ${hldp(`call plant-dot --repo '${repo}'`)}`;
    const output = await inNamespace([call('/srv/homes/alice'), call('/srv'), `echo "== owner"; stat -c %u /home/alice; ls -A /home/alice`].join('\n'));
    const parts = Object.fromEntries(output.split(/^== /m).slice(1).map((part) => [part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1)]));
    for (const workspace of ['/srv/homes/alice', '/srv']) expect(parts[workspace], workspace).toContain('[FAILED SANDBOX_UNAVAILABLE] plant-dot');
    expect(parts['/srv/homes/alice']).toContain('the workspace /srv/homes/alice is /home/alice under another path (the same folder, mounted twice), which is the home folder /home/alice');
    expect(parts['/srv']).toMatch(/the workspace \/srv holds \/srv\/(homes\/alice|keys) \(\/srv\/\S+ is \/home\/alice\S* under another path/);
    expect(parts['owner']?.trim().split('\n')).toEqual(['0', '.keys']);
  });
});
