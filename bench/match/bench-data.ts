import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';

/** One function of the benchmark's pool; `display`, `aliases`, `examples`, `group` and `author` are optional. */
export interface BenchTool {
  id: string;
  name: string;
  description: string;
  params: Array<{ name: string; description?: string; type?: string; required?: boolean; enum?: unknown[] }>;
  display?: string;
  aliases?: string[];
  examples?: string[];
  group?: string;
  author?: string;
}

/** One labelled request: `gold` lists the tool ids that answer it (empty: none of `candidates` fits). */
export interface BenchQuery {
  id: string;
  text: string;
  lang: string;
  gold: string[];
  category: string;
  /** the tools the request is offered with; a file may leave it out, which means every tool */
  candidates: string[];
}

/**
 * A benchmark file: the tools (given, taken from another file with `tools_from`, or scanned from a
 * `repository` of TOOL.hdlp folders, both paths relative to the file) and the labelled requests.
 */
export interface BenchData {
  /** the file's name without `.json`, e.g. `bfcl_v4_toolsel` */
  name: string;
  path: string;
  /** absent when the tools come from `repository` */
  tools?: BenchTool[];
  repository?: string;
  queries: BenchQuery[];
}

interface RawFile {
  tools?: unknown;
  tools_from?: unknown;
  repository?: unknown;
  queries?: unknown;
}

/**
 * Says which benchmark files are missing and where BFCL is expected, and exits 2: every script under bench/match
 * reads its data through here, and from a fresh clone without the team's ../shared they died with a raw ENOENT
 * and a stack trace (review userY, Y7).
 */
export function missingData(files: readonly string[]): never {
  process.stderr.write(
    `${basename(process.argv[1] ?? 'bench:match')}: no benchmark data at ${files.join(', ')}: BFCL is the team's shared/bench/bfcl_v4_toolsel.json, expected beside this clone (../shared); ` +
      `pass other files of that format with -- --data FILE (e.g. --data bench/match/data/starter-multilingual.json)\n`,
  );
  process.exit(2);
}

/**
 * Reads a benchmark file in the format of `shared/bench/bfcl_v4_toolsel.json`. Only `tools` (or
 * `tools_from`, or `repository`) and each request's `id` and `text` are required: `gold` defaults to
 * none, `lang` and `category` to `und`, `candidates` to every tool.
 */
export async function readBenchData(path: string, namedBy?: string): Promise<BenchData> {
  if (!existsSync(path)) missingData([namedBy ? `${path} (its tools_from, named by ${namedBy})` : path]);
  const raw = JSON.parse(await readFile(path, 'utf8')) as RawFile;
  const name = basename(path).replace(/\.json$/, '');
  const fail = (reason: string): never => {
    throw new Error(`${path}: ${reason}`);
  };
  if (!Array.isArray(raw.queries)) fail('expected "queries": [...]');
  let tools: BenchTool[] | undefined;
  let repository: string | undefined;
  if (Array.isArray(raw.tools)) tools = raw.tools.map((tool, index) => readTool(tool, index, fail));
  else if (typeof raw.tools_from === 'string') tools = (await readBenchData(resolve(dirname(path), raw.tools_from), path)).tools;
  else if (typeof raw.repository === 'string') repository = resolve(dirname(path), raw.repository);
  else fail('expected "tools": [...], "tools_from": "FILE" or "repository": "DIR"');
  const allIds = tools?.map((tool) => tool.id);
  const known = allIds === undefined ? undefined : new Set(allIds);
  const queries = (raw.queries as unknown[]).map((query, index) => readQuery(query, index, allIds, known, fail));
  return { name, path, ...(tools ? { tools } : {}), ...(repository ? { repository } : {}), queries };
}

function readTool(value: unknown, index: number, fail: (reason: string) => never): BenchTool {
  const tool = value as Partial<BenchTool>;
  if (typeof tool.name !== 'string' || tool.name === '') fail(`tools[${index}] has no "name"`);
  return {
    ...tool,
    id: typeof tool.id === 'string' ? tool.id : tool.name!,
    name: tool.name!,
    description: typeof tool.description === 'string' ? tool.description : '',
    params: Array.isArray(tool.params) ? tool.params : [],
  };
}

function readQuery(
  value: unknown,
  index: number,
  allIds: string[] | undefined,
  known: Set<string> | undefined,
  fail: (reason: string) => never,
): BenchQuery {
  const query = value as Partial<BenchQuery>;
  if (typeof query.text !== 'string') fail(`queries[${index}] has no "text"`);
  const id = typeof query.id === 'string' ? query.id : `query-${index + 1}`;
  const gold = Array.isArray(query.gold) ? query.gold.map(String) : [];
  const candidates = Array.isArray(query.candidates) ? query.candidates.map(String) : allIds ?? [];
  if (known) {
    const unknown = [...gold, ...candidates].filter((tool) => !known.has(tool));
    if (unknown.length > 0) fail(`queries[${index}] (${id}) names unknown tools: ${unknown.slice(0, 3).join(', ')}`);
  }
  return {
    id,
    text: query.text!,
    lang: typeof query.lang === 'string' ? query.lang : 'und',
    gold,
    category: typeof query.category === 'string' ? query.category : 'und',
    candidates,
  };
}

/**
 * Tuning uses only queries whose id hashes even: the first byte of sha256(id). A translated or
 * reworded request (`simple_python_12@zh`) falls in the half of the request it was made from.
 */
export function isTuningQuery(query: { id: string }): boolean {
  const source = query.id.split('@')[0]!;
  return createHash('sha256').update(source).digest()[0]! % 2 === 0;
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
