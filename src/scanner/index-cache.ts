import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScanEntry } from './build-index.js';
import type { StoredIndex } from './stored-index.js';
import { CachedEntries, readCacheFile, writeCacheFile } from './cache-file.js';
import { CacheFileStream } from './cache-file-writer.js';
import type { PatchedEntries } from './patched-entries.js';
import { POLICY_SCHEMA_URL } from './parse-policy.js';
import { SKILL_SCHEMA_URL } from './parse-skill.js';
import { TOOLSET_SCHEMA_URL } from './parse-toolset.js';
import { TOOL_SCHEMA_URL } from './tool-schema.js';
import { closeSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { PRIVATE_FOLDER_MODE } from './private-cache.js';

/** One scan to store on disk: enough to rebuild the index without parsing anything, and the index built from it. */
export interface CachedScan {
  source: string;
  commit: string;
  scanned_at: string;
  /** the scan's entries, or those of a scan cache file with a few changed in place */
  entries: readonly ScanEntry[] | PatchedEntries;
  index?: StoredIndex;
}

/** One scan as read back: its header and stored index at once, its entries parsed when asked for. */
export interface LoadedScan {
  source: string;
  commit: string;
  scanned_at: string;
  entries: CachedEntries;
  index?: StoredIndex;
}

/** A scan cache file being written as a scan reads (`IndexCache.begin`). */
export interface CacheWrite {
  append(lines: readonly Uint8Array[]): Promise<void>;
  finish(index: StoredIndex, keep: boolean): Promise<LoadedScan & { index: StoredIndex }>;
  abandon(): Promise<void>;
}

// numbers this process's temporary files
let writes = 0;

/** Indexes kept per source; older ones are pruned. */
const KEEP = 3;

// A cache written by another schema or parser must not be trusted: the version hashes the schema,
// package.json and the code of the scanner and the core types it builds (a new check changes it
// without a new package version). The TypeScript sources are hashed where they are present, so
// that the compiled CLI and the sources run by tsx (tests, benchmarks) share one cache.
let parserVersionMemo: string | undefined;

/**
 * The folders (under src/, or dist/ when compiled) whose code decides a scan's result and so is hashed into the cache's
 * version: every folder under these, its own folders with it (`scanner/sources/` holds the symlink, submodule and
 * stray-policy refusals and the name-claim history; review Z10-4). A new folder under them is hashed at once; a test
 * names the list, so that one outside them is a conscious choice.
 */
export const VERSION_FOLDERS = ['scanner', 'core'] as const;

function codeRoot(): { root: URL; extension: string } {
  const sources = new URL('../../src/', import.meta.url);
  return existsSync(sources) ? { root: sources, extension: '.ts' } : { root: new URL('../', import.meta.url), extension: '.js' };
}

/** Every folder hashed into the cache's version, relative to the code's root ('scanner/sources'), sorted. */
export function versionFolders(): string[] {
  const { root } = codeRoot();
  const found: string[] = [];
  const walk = (folder: string): void => {
    found.push(folder);
    for (const entry of readdirSync(new URL(`${folder}/`, root), { withFileTypes: true })) if (entry.isDirectory()) walk(`${folder}/${entry.name}`);
  };
  for (const folder of VERSION_FOLDERS) walk(folder);
  return found.sort();
}

// worked out on first use: commands that never touch the cache do not read the scanner's files
function parserVersion(): string {
  if (parserVersionMemo !== undefined) return parserVersionMemo;
  const hash = createHash('sha1').update(readFileSync(TOOL_SCHEMA_URL)).update(readFileSync(TOOLSET_SCHEMA_URL)).update(readFileSync(SKILL_SCHEMA_URL)).update(readFileSync(POLICY_SCHEMA_URL)).update(readFileSync(new URL('../../package.json', import.meta.url)));
  const { root, extension } = codeRoot();
  for (const folder of versionFolders()) {
    const url = new URL(`${folder}/`, root);
    for (const name of readdirSync(url).filter((file) => file.endsWith(extension) && !file.endsWith('.d.ts')).sort()) {
      hash.update(`${folder}/${name}`).update(readFileSync(new URL(name, url)));
    }
  }
  parserVersionMemo = hash.digest('hex').slice(0, 12);
  return parserVersionMemo;
}

/** Scans cached on disk per source and commit, so a restart with an unchanged repository parses nothing. */
export class IndexCache {
  /** `variant` names settings that change what a scan yields (the size limit): a scan made under others is not reused */
  constructor(
    private readonly dir: string,
    private readonly variant = '',
  ) {}

  /** The scan of that commit, if cached by this parser version and format. */
  async load(commit: string): Promise<LoadedScan | undefined> {
    return this.read(join(this.dir, `${fileName(commit)}.json`));
  }

  /** The most recently written scan, whatever its commit: the base for an incremental rescan after a restart. */
  async latest(): Promise<LoadedScan | undefined> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((name) => name.endsWith('.json'));
    } catch {
      return undefined;
    }
    const dated = await Promise.all(names.map(async (name) => ({ name, time: (await stat(join(this.dir, name))).mtimeMs })));
    dated.sort((a, b) => b.time - a.time);
    return dated[0] ? this.read(join(this.dir, dated[0].name)) : undefined;
  }

  /** Writes atomically (temp file + rename), then prunes old scans. */
  async save(scan: CachedScan): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    const target = join(this.dir, `${fileName(scan.commit)}.json`);
    // unique per write: two scanners of one source in a process may write the same commit at once, a slice at a time
    const temporary = `${target}.${process.pid}.${(writes += 1)}.tmp`;
    const { entries, index, ...header } = scan;
    try {
      await writeCacheFile(temporary, { parser: this.version(), ...header, entries: entries.length }, index, entries);
      await rename(temporary, target);
    } catch (error) {
      // a write cut short (a full disk, a file size limit), or a file that cannot be put in place, leaves no file
      // behind: nothing else removes a temporary
      await rm(temporary, { force: true });
      throw error;
    }
    await this.prune().catch(() => undefined);
  }

  /**
   * Begins writing the scan of a commit as it is read: `append` each entry's line in order, then `finish` with the
   * index, which serves the scan from the file (its entries read back when asked for) and keeps it as the cache unless
   * told not to (a scan some of whose files could not be read is not kept).
   */
  async begin(scan: Omit<CachedScan, 'entries' | 'index'> & { entries: number }): Promise<CacheWrite> {
    await mkdir(this.dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
    const target = join(this.dir, `${fileName(scan.commit)}.json`);
    const temporary = `${target}.${process.pid}.${(writes += 1)}.tmp`;
    await this.pruneLeftBehind().catch(() => undefined);
    const stream = await CacheFileStream.create(temporary, { parser: this.version(), ...scan });
    return {
      append: (lines) => stream.append(lines),
      abandon: () => stream.abandon(),
      finish: async (index, keep) => {
        const { descriptor, starts } = await stream.finish(index);
        if (keep) {
          try {
            await rename(temporary, target);
          } catch (error) {
            // the caller abandons the write (which removes the file) and reads the scan in memory
            closeSync(descriptor);
            throw error;
          }
          // older scans left behind cost disk, never a wrong answer: the scan is served and kept all the same
          await this.prune().catch(() => undefined);
        } else {
          // still read through its descriptor
          await rm(temporary, { force: true });
        }
        const { source, commit, scanned_at } = scan;
        return { source, commit, scanned_at, entries: new CachedEntries(keep ? target : temporary, descriptor, starts), index };
      },
    };
  }

  private async read(path: string): Promise<LoadedScan | undefined> {
    const file = await readCacheFile(path, this.version());
    if (!file) return undefined;
    const { source, commit, scanned_at } = file.header;
    return { source, commit, scanned_at, entries: file.entries, ...(file.index ? { index: file.index } : {}) };
  }

  private version(): string {
    const version = `${FORMAT}/${parserVersion()}`;
    return this.variant ? `${version}/${this.variant}` : version;
  }

  private async prune(): Promise<void> {
    await this.pruneLeftBehind();
    const names = (await readdir(this.dir)).filter((name) => name.endsWith('.json'));
    if (names.length <= KEEP) return;
    const dated = await Promise.all(names.map(async (name) => ({ name, time: (await stat(join(this.dir, name))).mtimeMs })));
    dated.sort((a, b) => b.time - a.time);
    await Promise.all(dated.slice(KEEP).map(({ name }) => rm(join(this.dir, name), { force: true })));
  }

  /**
   * Removes the temporaries (`<commit>.json.<pid>.<n>.tmp`) of processes no longer alive: one killed (SIGKILL, out of
   * memory, a container's stop) never removes its own, and a restart loop left one per try (review Z20, Z20-5). A
   * temporary of a live process (this one among them) is its write under way, and kept.
   */
  private async pruneLeftBehind(): Promise<void> {
    const left = (await readdir(this.dir)).filter((name) => !processAlive(Number(/\.json\.(\d+)\.\d+\.tmp$/.exec(name)?.[1] ?? process.pid)));
    await Promise.all(left.map((name) => rm(join(this.dir, name), { force: true })));
  }
}

/** Whether a process of that id runs on this host: one we may not signal runs all the same. */
function processAlive(pid: number): boolean {
  if (pid === process.pid || !Number.isSafeInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// The layout of the file, part of the version it is checked against: a file of another layout is rebuilt, never
// misread. 2: ASCII only, every other character as a JSON \u escape. 3: lines (header, stored index with the tools'
// names, then one entry a line), so that one entry can be parsed without the others. 4: a line of the entries' lengths
// after the stored index, so that a reader finds an entry without reading the lines before it. 5: the entries right
// after the header, then the stored index, the lengths and a trailer saying where the index begins, so that a writer
// holds one slice of entries' texts at a time, not all of them. 6: the tail after the entries is a line of JSON, then
// the lines' starts, the tools' positions, the entries' kinds and the tools' names as bytes, so that a warm start
// parses no JSON array of 100,000 names, positions and lengths (issue #18). 7: the tools' aliases and facts (JSON texts)
// as UTF-8 bytes after the names, not strings escaped into the tail's line, which held a save ~100 ms (issue #18).
// 8: the layout of 7, its stored index's ALIAS_CONFLICT warnings at the alias (review R, R14); a file of 7 holds them
// at 1:1, and a warm start serves the stored warnings as they are, so it is rebuilt. 9: the stored index's `contested`
// names (review Z, Z1): a file of 8 has none, and a policy naming one would be read as covering one tool only. 10: a
// case twin's refused name is contested too, and a name no claim keeps may have no holder: a file of 9 lacks them, and
// an allow naming a twin would be read as covering the one that serves it. 11: the stored index's `params`, each tool's
// declared params (review Z17, Z17-5): a file of 10 has none, and a policy's `*` rule would make every tool to check.
const FORMAT = 11;

function fileName(commit: string): string {
  return commit.replace(/[^A-Za-z0-9]/g, '_');
}
