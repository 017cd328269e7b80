import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolIndex } from '../../src/core/index.js';
import { scanOnce } from '../../src/scanner/index.js';

/** Scans a generated repository with the real scanner, as a gateway would (its cache in a throwaway folder). */
export async function loadIndex(repo: string): Promise<{ index: ToolIndex; scanner: 'scanOnce' }> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'hldp-bench-match-cache-'));
  try {
    return { index: await scanOnce(repo, { cacheDir }), scanner: 'scanOnce' };
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}
