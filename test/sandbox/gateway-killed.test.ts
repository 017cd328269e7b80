import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { processesMatching, processesRunning, uniqueSleep } from '../executors/support/processes.js';

// When the gateway itself is killed (SIGKILL, no chance to clean up), nothing a call started may live on:
// bubblewrap dies with its parent (--die-with-parent), unshare with setpriv's parent-death signal.
const FIXTURE = fileURLToPath(new URL('./fixtures/hold-tool.mjs', import.meta.url));

let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  temp = await makeTempDir();
});
afterAll(() => temp?.cleanup());

describe.each(['auto', 'off'])('a gateway with sandbox: %s killed with SIGKILL mid-call', (mode) => {
  it('takes the call’s whole process tree with it, setsid children too', async () => {
    const daemon = uniqueSleep();
    const foreground = uniqueSleep();
    const command = `setsid ${daemon.command} >/dev/null 2>&1 & ${foreground.command}`;
    const gateway = spawn(process.execPath, [FIXTURE, mode, temp.path], { stdio: 'ignore', env: { ...process.env, HOLD_COMMAND: command } });
    try {
      await vi.waitFor(() => expect([processesRunning(daemon.command).length, processesRunning(foreground.command).length]).toEqual([1, 1]), { timeout: 20_000, interval: 50 });
    } finally {
      gateway.kill('SIGKILL');
    }
    await vi.waitFor(() => expect([...processesMatching(daemon.marker), ...processesMatching(foreground.marker)]).toEqual([]), { timeout: 5_000, interval: 20 });
  });
});
