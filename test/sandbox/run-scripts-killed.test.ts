import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { describeWithBubblewrap } from './support/bubblewrap.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/hold-tool.mjs', import.meta.url));

let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  temp = await makeTempDir();
});
afterAll(() => temp?.cleanup());

/** Every file under `folder`, with its content. */
async function files(folder: string): Promise<Array<{ path: string; content: string }>> {
  const found: Array<{ path: string; content: string }> = [];
  for (const entry of await readdir(folder, { recursive: true })) {
    const path = join(folder, entry);
    if ((await stat(path)).isFile()) found.push({ path, content: await readFile(path, 'utf8') });
  }
  return found;
}

function gateway(mode: string, temporary: string, command: string, secret?: string) {
  return spawn(process.execPath, [FIXTURE, mode, temp.path], { stdio: 'ignore', env: { ...process.env, TMPDIR: temporary, HOLD_COMMAND: command, ...(secret ? { HOLD_SECRET: secret } : {}) } });
}

// a regression: a run's script (its whole environment, API keys included) was a file removed only when the run
// finished or the gateway exited, so a gateway killed with SIGKILL left every running call's script on the disk
describeWithBubblewrap('the run scripts of a gateway killed with SIGKILL mid-run', () => {
  for (const mode of ['auto', 'off']) {
    it(`leave no file with the run’s secret, and the next sandbox start sweeps the dead gateway’s folder (sandbox: ${mode})`, async () => {
      const temporary = join(temp.path, `tmp-${mode}`);
      await mkdir(temporary);
      const secret = `secret-${mode}-${process.pid}-${Date.now()}`;
      const started = join(temp.path, `started-${mode}`);
      const killed = gateway(mode, temporary, `touch ${started}; exec sleep 120`, secret);
      const exited = once(killed, 'exit');
      try {
        await vi.waitFor(async () => expect(await readdir(temp.path)).toContain(`started-${mode}`), { timeout: 20_000, interval: 50 });
        // mid-run: the script was read from a descriptor, no file holds it
        expect((await files(temporary)).filter((file) => file.content.includes(secret))).toEqual([]);
      } finally {
        killed.kill('SIGKILL');
      }
      await exited;
      // its exit handler never ran: its folder is still there, and nothing in it holds the secret
      const left = await readdir(temporary);
      expect(left).toEqual([expect.stringMatching(new RegExp(`^hldp-launch-${killed.pid}-`))]);
      expect((await files(temporary)).filter((file) => file.content.includes(secret))).toEqual([]);
      // the next gateway's sandbox start sweeps the dead one's folder (its own is removed when it exits)
      const next = gateway(mode, temporary, 'true');
      const [code] = await once(next, 'exit');
      expect(code).toBe(0);
      expect(await readdir(temporary)).toEqual([]);
    });
  }
});
