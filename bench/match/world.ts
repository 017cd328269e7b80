import { fileURLToPath } from 'node:url';
import { rm } from 'node:fs/promises';
import type { ToolDefinition } from '../../src/core/index.js';
import { legalNames, type BenchData } from './bench-data.js';
import { writeBenchRepository } from './bench-repository.js';
import type { BenchWorld } from './evaluate.js';
import { loadIndex } from './load-index.js';

/**
 * Scans the benchmark's tools with the real scanner, as a gateway would: a `repository` as it is, or
 * the file's tools written as `TOOL.hdlp` folders into a temporary repository. Returns what the
 * systems search.
 */
export async function prepareWorld(data: BenchData): Promise<{ world: BenchWorld; scanner: string; scanMs: number }> {
  if (data.repository !== undefined) return scanRepository(data, data.repository);
  const tools = data.tools!;
  const names = legalNames(tools);
  const repo = await writeBenchRepository(tools, names);
  try {
    const started = performance.now();
    const { index, scanner } = await loadIndex(repo);
    const scanMs = performance.now() - started;
    if (index.tools.length !== tools.length) {
      throw new Error(`the scan kept ${index.tools.length} of ${tools.length} tools: ${JSON.stringify(index.errors.slice(0, 3))}`);
    }
    const byName = new Map(index.tools.map((tool) => [tool.name, tool]));
    const toolsById = new Map<string, ToolDefinition>();
    const benchName = new Map<string, string>();
    for (const tool of tools) {
      const name = names.get(tool.id)!;
      toolsById.set(tool.id, byName.get(name)!);
      benchName.set(name, tool.name);
    }
    return { world: { toolsById, benchName }, scanner, scanMs };
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}

// a repository's tools are known by their names; its requests are checked against them here
async function scanRepository(data: BenchData, repository: string): Promise<{ world: BenchWorld; scanner: string; scanMs: number }> {
  const started = performance.now();
  const { index, scanner } = await loadIndex(repository);
  const scanMs = performance.now() - started;
  const toolsById = new Map(index.tools.map((tool) => [tool.name, tool]));
  const benchName = new Map(index.tools.map((tool) => [tool.name, tool.name]));
  for (const query of data.queries) {
    if (query.candidates.length === 0) query.candidates = [...toolsById.keys()];
    const unknown = [...query.gold, ...query.candidates].filter((name) => !toolsById.has(name));
    if (unknown.length > 0) throw new Error(`${data.path}: ${query.id} names tools the repository lacks: ${unknown.join(', ')}`);
  }
  return { world: { toolsById, benchName }, scanner, scanMs };
}

/** The BFCL v4 tool-selection file in the shared folder. */
export const DEFAULT_DATA = fileURLToPath(new URL('../../../shared/bench/bfcl_v4_toolsel.json', import.meta.url));
