import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareToolNames, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';
import { scanOnce } from '../../src/scanner/index.js';

const NATIVE_REPO = fileURLToPath(new URL('../../native-repo', import.meta.url));

/** The spec's five starter tools, read by the real scanner (its cache in a throwaway folder). */
export async function scanStarterTools(): Promise<ToolIndex> {
  const cacheDir = await mkdtemp(join(tmpdir(), 'hldp-matcher-test-'));
  try {
    return await scanOnce(NATIVE_REPO, { cacheDir });
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
}

/** A valid, normalised tool definition; override what the test is about. */
export function makeToolDefinition(overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name: 'example-tool',
    display: '示例工具',
    intent: 'an example tool for tests',
    method: 'exec',
    executor: 'gatekeeper',
    params_schema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    constraints: { timeout_ms: 30_000, max_output_bytes: 65_536, require_confirm: false },
    author: 'test',
    created: '2026-05-31',
    why: 'tests need a tool',
    aliases: [],
    examples: [],
    source: { path: `tools/${overrides.name ?? 'example-tool'}/TOOL.hdlp`, oid: '0'.repeat(40) },
    ...overrides,
  };
}

/** An index over the given tools, sorted as a scan would sort them. */
export function makeIndex(tools: ToolDefinition[]): ToolIndex {
  return {
    source: 'test',
    commit: 'test-commit',
    tools: [...tools].sort(compareToolNames),
    toolsets: [],
    skills: [],
    errors: [],
    warnings: [],
    scanned_at: '2026-05-31T00:00:00.000Z',
  };
}
