import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Receipt } from '../../src/core/index.js';

/** A complete receipt with the given fields replaced. */
export function makeReceipt(overrides: Partial<Receipt> = {}): Receipt {
  return {
    id: `call-${Math.random().toString(36).slice(2)}`,
    tool: 'shell-exec',
    method: 'exec',
    executor: 'gatekeeper',
    commit: 'a'.repeat(40),
    params: { cmd: 'echo hello' },
    ok: true,
    output: 'hello\n',
    error: null,
    stderr: '',
    code: null,
    exit_code: 0,
    signal: null,
    timed_out: false,
    output_bytes: 6,
    cut_bytes: 0,
    duration_ms: 3,
    started_at: '2026-05-31T10:00:00.000Z',
    finished_at: '2026-05-31T10:00:00.003Z',
    confirmation: null,
    ...overrides,
  };
}

/** A temporary folder for a database file, removed by `cleanup`. */
export async function makeStoreFolder(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'hldp-store-'));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}
