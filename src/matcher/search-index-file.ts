import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstat, fstatSync, mkdirSync, open, openSync, read, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { open as openHandle, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { letGo, runLettingGo, runToEnd, sameToolsAt, takePatchedFrom, toolCount, toolsOf, type ToolIndex, type ToolSequence } from '../core/index.js';
import { analysisSteps } from './analyze.js';
import { keptCalibrationBasis, type CalibrationBasis } from './calibration-basis.js';
import { KeptLists, type ListsPlace } from './kept-lists.js';
import { RecordFile, type RecordsPlace } from './record-file.js';
import { type SearchIndex } from './search-index.js';
import { restoreSearchIndex, restoreSearchIndexLettingGo, searchIndexToWrite, searchIndexToWriteSteps } from './stored-search-index.js';
import { updateSearchIndexSteps } from './update-search-index.js';
import { decodeOrRefuseSearchIndexFile, encodeSearchIndexFile, LAYOUT, type DecodedSearchIndexFile, type Measured, type ReadRequest, type Refusal } from './search-index-layout.js';

/** A search index read from its file, and what its matcher measured over the same tools. */
export interface KeptSearchIndex {
  search: SearchIndex;
  measured: Measured;
  /** what the calibration read of each tool, kept with the index (over the tools of the file's scan) */
  basis?: CalibrationBasis;
  /**
   * set where no file was kept for the index asked for, but one was for the scan it was patched from at a start
   * (`takePatchedFrom`): `search` is that one updated with the tools changed, answering as a fresh build; nothing was
   * measured over these tools (`measured` is empty, `basis` is the older scan's) and it is not kept yet
   */
  updated?: true;
}

/** Search indexes kept on disk per scan (source, commit, scan time), so a restart loads the index instead of analysing every tool again. */
export interface SearchIndexFiles {
  /**
   * the search index kept for this index's tools, if a file of this version holds it; else, for an index patched at a
   * start from an older scan whose file is kept, that one updated with the tools changed (issue #18: a restart onto a
   * newer commit built it again from every tool, ~35 s of CPU at 100,000)
   */
  read(index: ToolIndex): KeptSearchIndex | undefined;
  /**
   * `read` for a server that already answers: the file's arrays read in libuv's threads, each into an array of its own
   * size, and the checks over them and the restore made a slice at a time
   */
  readLettingGo(index: ToolIndex): Promise<KeptSearchIndex | undefined>;
  /**
   * keeps `search` (built for `index`), and what was measured over its tools, unless a file already holds it; a failure
   * to write only costs the next start a build
   */
  write(index: ToolIndex, search: SearchIndex, measured?: Measured): void;
  /**
   * `write` for a server that already answers: the file written a piece at a time in libuv's threads, the event loop
   * let go between pieces; given up (the file not kept) once `unchanged` says `search` changed meanwhile
   */
  writeLettingGo(index: ToolIndex, search: SearchIndex, measured: Measured, unchanged: () => boolean): Promise<void>;
}

// files kept; older ones are pruned
const KEEP = 3;

let matcherVersionMemo: string | undefined;

// A file written by another matcher (its analysis, its postings) is not used: the version hashes the layout,
// package.json and the matcher's own code, the TypeScript sources where present (as the scanner's cache does).
function matcherVersion(): string {
  if (matcherVersionMemo !== undefined) return matcherVersionMemo;
  const hash = createHash('sha1').update(`layout ${LAYOUT}\n`).update(readFileSync(new URL('../../package.json', import.meta.url)));
  const sources = new URL('../../src/matcher/', import.meta.url);
  const fromSources = existsSync(sources);
  // dist/matcher/ from there and from the CLI's bundle (dist/bundle/) alike
  const folder = fromSources ? sources : new URL('../matcher/', import.meta.url);
  const extension = fromSources ? '.ts' : '.js';
  for (const name of readdirSync(folder).filter((file) => file.endsWith(extension) && !file.endsWith('.d.ts')).sort()) {
    hash.update(name).update(readFileSync(new URL(name, folder)));
  }
  matcherVersionMemo = hash.digest('hex').slice(0, 12);
  return matcherVersionMemo;
}

/** Says what went wrong with a kept file (a `code` such as HLDP_SEARCH_INDEX_REFUSED): a server's log line, else a process warning. */
export type SearchIndexWarn = (message: string, code: string) => void;

const processWarning: SearchIndexWarn = (message, code) => process.emitWarning(message, { code });

/**
 * Search index files in `dir` (the gateway's cache folder); `warn` says a file refused or not kept — a server passes
 * its logger, so that it is a line of its JSON log, not a Node warning on stderr no log shipper reads (review userZ6 F8).
 */
export function searchIndexFiles(dir: string, warn: SearchIndexWarn = processWarning): SearchIndexFiles {
  const pathOf = (index: ToolIndex): string => {
    // a scan is one source at one commit, parsed at one time: a rescan that parsed anything has another time
    const key = createHash('sha256').update(JSON.stringify([matcherVersion(), index.source, index.commit, index.scanned_at, toolCount(index)])).digest('hex').slice(0, 32);
    return join(dir, `${key}.v8`);
  };
  return {
    read(index) {
      const own = readKeptSync(pathOf(index), toolsOf(index), warn);
      if (own !== undefined) return own;
      const previous = patchedFrom(index);
      const older = previous && readKeptSync(pathOf(previous), toolsOf(previous), warn);
      return older && updated(older, () => runToEnd(updateSearchIndexSteps(older.search, toolsOf(index))));
    },
    async readLettingGo(index) {
      const own = await readKeptAsync(pathOf(index), toolsOf(index), warn);
      if (own !== undefined) return own;
      const previous = patchedFrom(index);
      const older = previous && (await readKeptAsync(pathOf(previous), toolsOf(previous), warn));
      if (older === undefined) return undefined;
      // the stop lists and the word breaker a step each (at once if made already), before the update's first analysis:
      // a server's preparation makes them while this file is read, and need not have finished
      await runLettingGo(analysisSteps());
      return await updatedAsync(older, () => runLettingGo(updateSearchIndexSteps(older.search, toolsOf(index))));
    },
    write(index, search, measured = {}) {
      try {
        // inside the try: the version reads package.json, and failing to read it only costs the next start a build
        const path = pathOf(index);
        // one being written a piece at a time is left to that write
        if (existsSync(path) || writing.has(path)) return;
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const temporary = `${path}.${process.pid}.tmp`;
        // piece by piece: the arrays are written from where they are, never joined into one buffer of the file's size,
        // and the entries and records a piece at a time, never copied whole
        const descriptor = openSync(temporary, 'w');
        try {
          for (const piece of encodeSearchIndexFile(matcherVersion(), searchIndexToWrite(search), measured)) {
            for (let written = 0; written < piece.length; ) written += writeSync(descriptor, piece, written);
          }
        } finally {
          closeSync(descriptor);
        }
        renameSync(temporary, path);
        prune(dir);
      } catch (error) {
        warn(`search index not kept on disk: ${String(error)}`, 'HLDP_SEARCH_INDEX_NOT_KEPT');
      }
    },
    async writeLettingGo(index, search, measured, unchanged) {
      let path: string;
      try {
        path = pathOf(index);
      } catch (error) {
        warn(`search index not kept on disk: ${String(error)}`, 'HLDP_SEARCH_INDEX_NOT_KEPT');
        return;
      }
      if (existsSync(path) || writing.has(path)) return;
      writing.add(path);
      const temporary = `${path}.${process.pid}.tmp`;
      let handle: FileHandle | undefined;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        // the passes over every tool and entry that come before the first piece, a slice at a time
        const toWrite = await runLettingGo(searchIndexToWriteSteps(search));
        handle = await openHandle(temporary, 'w');
        // each piece is written before the next is made (the encoder reuses one piece's array)
        for (const piece of encodeSearchIndexFile(matcherVersion(), toWrite, measured)) {
          if (!unchanged()) throw new ChangedWhileWritten();
          for (let written = 0; written < piece.length; ) written += (await handle.write(piece, written)).bytesWritten;
        }
        await handle.close();
        handle = undefined;
        if (!unchanged()) throw new ChangedWhileWritten();
        renameSync(temporary, path);
        prune(dir);
      } catch (error) {
        await handle?.close().catch(() => undefined);
        try {
          rmSync(temporary, { force: true });
        } catch {
          // pruned by a later start
        }
        // a pass that met the index changing under it is given up as quietly
        if (!(error instanceof ChangedWhileWritten) && unchanged()) warn(`search index not kept on disk: ${String(error)}`, 'HLDP_SEARCH_INDEX_NOT_KEPT');
      } finally {
        writing.delete(path);
      }
    },
  };
}

// the search index files this process is writing a piece at a time
const writing = new Set<string>();

// a search index updated by a successor while its file was written: the file is not kept (the successor's is)
class ChangedWhileWritten extends Error {}

type Decoded = DecodedSearchIndexFile | Refusal;

// The file's descriptor, until the records left in it take it over (closed with them, once nothing holds them; the
// postings' lists left in it read through them): a file read without being kept is closed once it is read.
class OpenSearchFile {
  records: RecordFile | undefined;
  constructor(
    readonly descriptor: number,
    private readonly path: string,
  ) {}

  /** What the decoder makes of where the records lie: read from this file when first asked for. */
  readonly leaveRecords = (place: RecordsPlace): RecordFile => {
    this.records?.close();
    this.records = new RecordFile(this.descriptor, place);
    return this.records;
  };

  /** What the decoder makes of where the postings' lists lie: each read from this file at its first use (removed if refused). */
  readonly leaveLists = (place: ListsPlace, lengths: Int32Array): KeptLists => new KeptLists(this.records!, place, this.path, lengths);

  /** Closes the file, unless `kept` holds its records. */
  closeUnless(kept: KeptSearchIndex | undefined): void {
    try {
      if (kept !== undefined && this.records !== undefined) return;
      if (this.records !== undefined) this.records.close();
      else closeSync(this.descriptor);
    } catch {
      // closed already
    }
  }
}

function readKeptSync(path: string, tools: ToolSequence, warn: SearchIndexWarn): KeptSearchIndex | undefined {
  let file: OpenSearchFile | undefined;
  let result: KeptSearchIndex | undefined;
  try {
    file = new OpenSearchFile(openSync(path, 'r'), path);
  } catch {
    // missing: a miss, never an error
    return undefined;
  }
  try {
    const decoded = decodeSync(file);
    result = 'refused' in decoded ? undefined : keptOrRefused(path, restoreSearchIndex(decoded.stored, tools), decoded, tools, warn);
    if ('refused' in decoded) refuse(path, decoded, warn);
    return result;
  } catch (error) {
    refuse(path, { refused: String(error) }, warn);
    return undefined;
  } finally {
    file.closeUnless(result);
  }
}

async function readKeptAsync(path: string, tools: ToolSequence, warn: SearchIndexWarn): Promise<KeptSearchIndex | undefined> {
  let file: OpenSearchFile | undefined;
  let result: KeptSearchIndex | undefined;
  try {
    file = new OpenSearchFile(await openAsync(path, 'r'), path);
  } catch {
    return undefined;
  }
  try {
    const decoded = await decodeAsync(file);
    await letGo();
    if ('refused' in decoded) refuse(path, decoded, warn);
    else result = keptOrRefused(path, await restoreSearchIndexLettingGo(decoded.stored, tools), decoded, tools, warn);
    return result;
  } catch (error) {
    refuse(path, { refused: String(error) }, warn);
    return undefined;
  } finally {
    file.closeUnless(result);
  }
}

// A file at the path of this version's index for this very scan that does not hold it (damaged, or written otherwise)
// is removed and said: the index is built again and kept in its place (left there, it was refused at every start and
// never replaced, each start building the index again: ~30 s of CPU at 100,000 tools).
function refuse(path: string, { refused }: Refusal, warn: SearchIndexWarn): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // refused again at the next start
  }
  warn(`search index file ${path} not read (${refused}): built again`, 'HLDP_SEARCH_INDEX_REFUSED');
}

// the kept index, or undefined (the file refused) where it is another version's or not for these tools
function keptOrRefused(path: string, search: SearchIndex | undefined, decoded: DecodedSearchIndexFile, tools: ToolSequence, warn: SearchIndexWarn): KeptSearchIndex | undefined {
  if (decoded.version !== matcherVersion()) refuse(path, { refused: `written by another matcher (${decoded.version}; this one is ${matcherVersion()})` }, warn);
  else if (search === undefined) refuse(path, { refused: `kept for other tools than the scan's ${tools.length}` }, warn);
  else return kept(search, decoded, tools);
  return undefined;
}

const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const readAsync = promisify(read);

function kept(search: SearchIndex | undefined, { measured }: DecodedSearchIndexFile, tools: ToolSequence): KeptSearchIndex | undefined {
  if (search === undefined) return undefined;
  const basis = measured.basis && keptCalibrationBasis(measured.basis, tools);
  return { search, measured, ...(basis ? { basis } : {}) };
}

// the scan `index` was patched from at a start, where their unchanged tools can be told by position without making them
function patchedFrom(index: ToolIndex): ToolIndex | undefined {
  const previous = takePatchedFrom(index);
  return previous && sameToolsAt(toolsOf(previous), toolsOf(index)) ? previous : undefined;
}

// the older scan's index updated (a failure to make a changed tool is a miss: a build meets it as it would)
function updated(older: KeptSearchIndex, update: () => SearchIndex): KeptSearchIndex | undefined {
  try {
    return updatedWith(older, update());
  } catch {
    return undefined;
  }
}

async function updatedAsync(older: KeptSearchIndex, update: () => Promise<SearchIndex>): Promise<KeptSearchIndex | undefined> {
  try {
    return updatedWith(older, await update());
  } catch {
    return undefined;
  }
}

const updatedWith = (older: KeptSearchIndex, search: SearchIndex): KeptSearchIndex => ({ search, measured: {}, ...(older.basis ? { basis: older.basis } : {}), updated: true });

// the decoder's reads, each filled from the file (a short read: the file ended)
function decodeSync({ descriptor, leaveRecords, leaveLists }: OpenSearchFile): Decoded {
  const decoding = decodeOrRefuseSearchIndexFile(fstatSync(descriptor).size, leaveRecords, leaveLists);
  for (let step = decoding.next(0); ; ) {
    if (step.done) return step.value;
    step = decoding.next(fill(step.value, (into, offset, position) => readSync(descriptor, into, offset, into.length - offset, position)));
  }
}

function fill({ into, position }: ReadRequest, read: (into: Uint8Array, offset: number, position: number) => number): number {
  let filled = 0;
  for (let bytes = -1; filled < into.length && bytes !== 0; filled += bytes) bytes = read(into, filled, position + filled);
  return filled;
}

// as decodeSync, each read in libuv's threads (at 100,000 tools ~37 MB, the records' 42 MB left in the file, which would
// hold the event loop if read here), and
// other work let run at each pause of the checks
async function decodeAsync({ descriptor, leaveRecords, leaveLists }: OpenSearchFile): Promise<Decoded> {
  const decoding = decodeOrRefuseSearchIndexFile((await fstatAsync(descriptor)).size, leaveRecords, leaveLists);
  for (let step = decoding.next(0); ; ) {
    if (step.done) return step.value;
    const { into, position } = step.value;
    if (into.length === 0) {
      await letGo();
      step = decoding.next(0);
      continue;
    }
    let filled = 0;
    for (let bytes = -1; filled < into.length && bytes !== 0; filled += bytes) bytes = (await readAsync(descriptor, into, filled, into.length - filled, position + filled)).bytesRead;
    step = decoding.next(filled);
  }
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
