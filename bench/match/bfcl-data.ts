import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** One function of the benchmark's pool. */
export interface BenchTool {
  id: string;
  name: string;
  description: string;
  params: Array<{ name: string; description?: string; type?: string; required?: boolean; enum?: unknown[] }>;
}

/** One labelled request: `gold` lists the tool ids that answer it (empty: none of `candidates` fits). */
export interface BenchQuery {
  id: string;
  text: string;
  lang: string;
  gold: string[];
  category: string;
  candidates: string[];
}

/** A benchmark file in the format of `shared/bench/bfcl_v4_toolsel.json`. */
export interface BenchData {
  tools: BenchTool[];
  queries: BenchQuery[];
}

/** Reads a benchmark file. */
export async function readBenchData(path: string): Promise<BenchData> {
  const data = JSON.parse(await readFile(path, 'utf8')) as BenchData;
  if (!Array.isArray(data.tools) || !Array.isArray(data.queries)) {
    throw new Error(`${path} is not a benchmark file: expected {tools: [...], queries: [...]}`);
  }
  return data;
}

/** Tuning uses only queries whose id hashes even: the first byte of sha256(id). */
export function isTuningQuery(query: { id: string }): boolean {
  return createHash('sha256').update(query.id).digest()[0]! % 2 === 0;
}

const LEGAL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Maps benchmark tool ids to legal, unique `TOOL.hdlp` names. Same-name variants (`name~hash`) become
 * `name--1`, `name--2`, …: a bare number is a word the matcher ignores, where a hash would read as one.
 */
export function legalNames(tools: readonly BenchTool[]): Map<string, string> {
  const byId = new Map<string, string>();
  const taken = new Set<string>();
  const variants = new Map<string, number>();
  for (const tool of tools) {
    let name = tool.name.replace(/[^A-Za-z0-9._-]/g, '-');
    if (!/^[A-Za-z0-9]/.test(name)) name = `x${name}`;
    name = name.slice(0, 110);
    if (tool.id !== tool.name) {
      const variant = (variants.get(tool.name) ?? 0) + 1;
      variants.set(tool.name, variant);
      name = `${name}--${variant}`;
    }
    let unique = name;
    // names differing only in case would collide on a case-insensitive file system; the scanner refuses them
    for (let suffix = 2; taken.has(unique.toLowerCase()); suffix += 1) unique = `${name}-${suffix}`;
    if (!LEGAL_NAME.test(unique)) throw new Error(`cannot make a legal tool name of '${tool.id}'`);
    taken.add(unique.toLowerCase());
    byId.set(tool.id, unique);
  }
  return byId;
}
