import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compareToolNames, type ToolDefinition, type ToolIndex } from '../../src/core/index.js';

/** Scans a generated repository with the real scanner once it exists; until then reads the files directly. */
export async function loadIndex(repo: string): Promise<{ index: ToolIndex; scanner: 'scanOnce' | 'direct' }> {
  const specifier = '../../src/scanner/index.js';
  const scanner = (await import(specifier).catch(() => undefined)) as
    | { scanOnce?: (path: string) => Promise<ToolIndex> }
    | undefined;
  if (scanner?.scanOnce) return { index: await scanner.scanOnce(repo), scanner: 'scanOnce' };
  return { index: await readDirectly(repo), scanner: 'direct' };
}

async function readDirectly(repo: string): Promise<ToolIndex> {
  const names = await readdir(join(repo, 'tools'));
  const tools: ToolDefinition[] = [];
  for (const name of names) {
    const path = join('tools', name, 'TOOL.hdlp');
    const file = parse(await readFile(join(repo, path), 'utf8')) as Record<string, unknown>;
    tools.push({
      ...(file as unknown as ToolDefinition),
      params_schema: { additionalProperties: false, ...(file['params_schema'] as object) },
      constraints: { timeout_ms: 30_000, max_output_bytes: 65_536, require_confirm: false },
      aliases: (file['aliases'] as string[] | undefined) ?? [],
      examples: (file['examples'] as string[] | undefined) ?? [],
      created: String(file['created']),
      source: { path, oid: '' },
    });
  }
  tools.sort(compareToolNames);
  return { source: repo, commit: 'direct', tools, errors: [], warnings: [], scanned_at: new Date().toISOString() };
}
