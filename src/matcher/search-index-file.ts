import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { letGo, type ToolIndex } from '../core/index.js';
import { restoreSearchIndex, restoreSearchIndexLettingGo, storeSearchIndex, type SearchIndex, type StoredSearchIndex } from './search-index.js';

/** Search indexes kept on disk per scan (source, commit, scan time), so a restart loads the index instead of analysing every tool again. */
export interface SearchIndexFiles {
  /** the search index kept for this index's tools, if a file of this version holds it */
  read(index: ToolIndex): SearchIndex | undefined;
  /** `read` for a server that already answers: the file read without blocking (its typed arrays restored in one short piece) */
  readLettingGo(index: ToolIndex): Promise<SearchIndex | undefined>;
  /** keeps `search` (built for `index`) unless a file already holds it; a failure to write only costs the next start a build */
  write(index: ToolIndex, search: SearchIndex): void;
}

// files kept; older ones are pruned
const KEEP = 3;

let matcherVersionMemo: string | undefined;

// The file's layout: 1 held minisearch's JSON, 2 the first stage's own postings as typed arrays.
const LAYOUT = 2;

// A file written by another matcher (its analysis, its postings) is not used: the version hashes the layout,
// package.json and the matcher's own code, the TypeScript sources where present (as the scanner's cache does).
function matcherVersion(): string {
  if (matcherVersionMemo !== undefined) return matcherVersionMemo;
  const hash = createHash('sha1').update(`layout ${LAYOUT}\n`).update(readFileSync(new URL('../../package.json', import.meta.url)));
  const sources = new URL('../../src/matcher/', import.meta.url);
  const fromSources = existsSync(sources);
  const folder = fromSources ? sources : new URL('./', import.meta.url);
  const extension = fromSources ? '.ts' : '.js';
  for (const name of readdirSync(folder).filter((file) => file.endsWith(extension) && !file.endsWith('.d.ts')).sort()) {
    hash.update(name).update(readFileSync(new URL(name, folder)));
  }
  matcherVersionMemo = hash.digest('hex').slice(0, 12);
  return matcherVersionMemo;
}

/** Search index files in `dir` (the gateway's cache folder). */
export function searchIndexFiles(dir: string): SearchIndexFiles {
  const pathOf = (index: ToolIndex): string => {
    // a scan is one source at one commit, parsed at one time: a rescan that parsed anything has another time
    const key = createHash('sha256').update(JSON.stringify([matcherVersion(), index.source, index.commit, index.scanned_at, index.tools.length])).digest('hex').slice(0, 32);
    return join(dir, `${key}.v8`);
  };
  return {
    read(index) {
      try {
        const stored = deserialize(readFileSync(pathOf(index))) as StoredSearchIndex & { version: string };
        return stored.version === matcherVersion() ? restoreSearchIndex(stored, index.tools) : undefined;
      } catch {
        // missing, torn or of another layout: a miss, never an error
        return undefined;
      }
    },
    async readLettingGo(index) {
      try {
        const bytes = await readFile(pathOf(index));
        await letGo();
        const stored = deserialize(bytes) as StoredSearchIndex & { version: string };
        await letGo();
        return stored.version === matcherVersion() ? await restoreSearchIndexLettingGo(stored, index.tools) : undefined;
      } catch {
        return undefined;
      }
    },
    write(index, search) {
      try {
        // inside the try: the version reads package.json, and failing to read it only costs the next start a build
        const path = pathOf(index);
        if (existsSync(path)) return;
        mkdirSync(dir, { recursive: true });
        const temporary = `${path}.${process.pid}.tmp`;
        writeFileSync(temporary, serialize({ version: matcherVersion(), ...storeSearchIndex(search) }));
        renameSync(temporary, path);
        prune(dir);
      } catch (error) {
        process.emitWarning(`search index not kept on disk: ${String(error)}`);
      }
    },
  };
}

// a `.tmp` of a live process other than this one is left alone unless it is this old (its pid was reused)
const ABANDONED_MS = 60 * 60_000;

/** Whether process `pid` is running on this machine. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function prune(dir: string): void {
  const names = readdirSync(dir);
  // `<key>.v8.<pid>.tmp` a crash (or a full disk) left behind, beside the files; never one being written now
  const now = Date.now();
  for (const name of names) {
    const torn = /^[0-9a-f]{32}\.v8\.(\d+)\.tmp$/.exec(name);
    if (!torn) continue;
    const pid = Number(torn[1]);
    if (pid === process.pid) continue;
    try {
      if (!running(pid) || now - statSync(join(dir, name)).mtimeMs > ABANDONED_MS) rmSync(join(dir, name), { force: true });
    } catch {
      // gone already
    }
  }
  const dated = names
    .filter((name) => name.endsWith('.v8'))
    .map((name) => ({ name, time: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.time - a.time);
  for (const { name } of dated.slice(KEEP)) rmSync(join(dir, name), { force: true });
}
