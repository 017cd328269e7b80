import { chmod, link, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { constants } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunAsFiles } from '../../src/sandbox/index.js';
import { makeTempDir } from '../helpers/git.js';

// Review Q, Q2: a root gateway's file methods open each file through a helper process of sandbox.run_as (nobody),
// then open it again through /proc/<helper>/fd/<fd>, trusting the helper's answer: `fd` went into that path
// unchecked, and the inode was compared with the dev/ino the same answer gave. Any other process of nobody may
// ptrace the helper and make it answer `{"fd":"../../../../etc/shadow", dev, ino of /etc/shadow}` — the gateway read
// (and, for write_file, appended to) any root file. Here the helper is a stub that answers as a taken-over helper
// would; everything else is the gateway's real RunAsFiles, which must refuse with EIO and give no file.

let temp: { path: string; cleanup: () => Promise<void> };
const at = (...names: string[]) => join(temp.path, ...names);
const opened: RunAsFiles[] = [];

// the stub is started as the helper is (drop[0] with setpriv's arguments, descriptor 3 the root), and answers each
// request as `behaviour` says
async function stub(name: string, behaviour: string): Promise<RunAsFiles> {
  const file = at(`stub-${name}`);
  await writeFile(file, `#!${process.execPath}
'use strict';
const fs = require('fs');
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (request.close !== undefined) return;
  const outside = ${JSON.stringify(at('outside', 'root-only'))};
  const info = fs.statSync(outside, { bigint: true });
  ${behaviour}
});
`);
  await chmod(file, 0o755);
  const files = new RunAsFiles(at('root'), [file, '--'], 'uid 65534, gid 65534 (nobody)');
  opened.push(files);
  return files;
}

describe("a root gateway's file helper that answers what it did not open (review Q, Q2)", () => {
  beforeAll(async () => {
    temp = await makeTempDir();
    await mkdir(at('root'));
    await mkdir(at('outside'));
    await writeFile(at('root', 'a.txt'), 'the workspace file\n');
    await writeFile(at('outside', 'root-only'), 'root:SECRET-HASH:20228\n', { mode: 0o600 });
  });
  afterAll(async () => {
    for (const files of opened) files.close();
    await temp?.cleanup();
  });

  it('takes a true answer (the stub opens the requested file)', async () => {
    const files = await stub('honest', `const fd = fs.openSync(${JSON.stringify(at('root'))} + '/' + request.parts.join('/'), request.flags);
  const own = fs.fstatSync(fd, { bigint: true });
  process.stdout.write(JSON.stringify({ id: request.id, fd, dev: String(own.dev), ino: String(own.ino) }) + '\\n');`);
    const handle = await files.open(['a.txt'], 'a.txt', { flags: constants.O_RDONLY });
    expect(await handle.readFile('utf8')).toBe('the workspace file\n');
    await handle.close();
  });

  it('refuses a descriptor that is a path (`../../../../<root file>`), and stops the helper', async () => {
    const files = await stub('path', `process.stdout.write(JSON.stringify({ id: request.id, fd: '../../../..' + outside, dev: String(info.dev), ino: String(info.ino) }) + '\\n');`);
    const opening = files.open(['a.txt'], 'a.txt', { flags: constants.O_RDONLY });
    await expect(opening).rejects.toMatchObject({ code: 'EIO' });
    const handle = await opening.catch(() => undefined);
    expect(handle).toBeUndefined();
  });

  it("refuses a descriptor of the helper's that is not the requested file: no read, no write as root", async () => {
    const files = await stub('other-fd', `const fd = fs.openSync(outside, 'r');
  process.stdout.write(JSON.stringify({ id: request.id, fd, dev: String(info.dev), ino: String(info.ino) }) + '\\n');`);
    await expect(files.open(['a.txt'], 'a.txt', { flags: constants.O_RDONLY })).rejects.toMatchObject({ code: 'EIO' });
    // write_file: the helper opened the file read-only, the gateway would open it again O_WRONLY|O_APPEND as root
    const writing = files.open(['a.txt'], 'a.txt', { flags: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT });
    await expect(writing).rejects.toMatchObject({ code: 'EIO' });
    expect(await readFile(at('outside', 'root-only'), 'utf8')).toBe('root:SECRET-HASH:20228\n');
  });

  it("refuses to write through a hard link planted at the path (fs.protected_hardlinks=0): root's file stays as it was", async () => {
    // the user may link a file it cannot write where protected_hardlinks is 0; the taken-over helper opens the path
    // read-only (which it may), and the gateway reopened it O_WRONLY as root: same path, same inode, so it passed
    await link(at('outside', 'root-only'), at('root', 'linked'));
    const files = await stub('hard-link', `const fd = fs.openSync(${JSON.stringify(at('root'))} + '/' + request.parts.join('/'), 'r');
  const own = fs.fstatSync(fd, { bigint: true });
  process.stdout.write(JSON.stringify({ id: request.id, fd, dev: String(own.dev), ino: String(own.ino) }) + '\\n');`);
    const writing = files.open(['linked'], 'linked', { flags: constants.O_WRONLY | constants.O_APPEND });
    await expect(writing).rejects.toMatchObject({ code: 'EIO', message: expect.stringContaining('hard links') });
    const handle = await writing.catch(() => undefined);
    await handle?.appendFile('appended by nobody\n');
    await handle?.close();
    expect(await readFile(at('outside', 'root-only'), 'utf8')).toBe('root:SECRET-HASH:20228\n');
    // reading it is what the user could do anyway, and stays as it was
    const reading = await files.open(['linked'], 'linked', { flags: constants.O_RDONLY });
    await reading.close();
  });

  it('refuses dev and ino that are not decimal numbers', async () => {
    const files = await stub('dev', `const fd = fs.openSync(${JSON.stringify(at('root', 'a.txt'))}, 'r');
  process.stdout.write(JSON.stringify({ id: request.id, fd, dev: { toString: 1 }, ino: '1e3' }) + '\\n');`);
    await expect(files.open(['a.txt'], 'a.txt', { flags: constants.O_RDONLY })).rejects.toMatchObject({ code: 'EIO' });
  });
});
