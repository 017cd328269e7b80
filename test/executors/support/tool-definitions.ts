import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseToolDefinition } from '../../../src/scanner/index.js';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, type ToolDefinition } from '../../../src/core/index.js';

/** A valid definition with the given fields replaced (constraints merged over the defaults). */
export function makeToolDefinition(overrides: Partial<Omit<ToolDefinition, 'constraints'>> & { constraints?: Partial<ToolDefinition['constraints']> } = {}): ToolDefinition {
  const { constraints, ...rest } = overrides;
  return {
    name: 'test-tool',
    display: 'test tool',
    intent: 'a tool made by a test',
    method: 'run',
    executor: 'shell',
    params_schema: { type: 'object', properties: {} },
    author: 'test',
    created: '2026-05-31',
    why: 'tests need one',
    aliases: [],
    examples: [],
    source: { path: 'tools/test-tool/TOOL.hdlp', oid: '0'.repeat(40) },
    ...rest,
    constraints: { timeout_ms: DEFAULT_TIMEOUT_MS, max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES, require_confirm: false, ...constraints },
  };
}

/** One of the starter tools in `native-repo/tools/`, read through the real parser exactly as the scanner hands it to the executors. */
export function loadStarterTool(name: string): ToolDefinition {
  const path = fileURLToPath(new URL(`../../../native-repo/tools/${name}/TOOL.hdlp`, import.meta.url));
  const parsed = parseToolDefinition({ path: `tools/${name}/TOOL.hdlp`, folder: name, oid: '0'.repeat(40), content: readFileSync(path) });
  if (!parsed.tool) throw new Error(`starter tool ${name} does not parse: ${JSON.stringify(parsed.diagnostics)}`);
  return parsed.tool;
}
