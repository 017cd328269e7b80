import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { dirname } from 'node:path';
import { ENTRY_KINDS, ENTRY_LAYOUT, type EntryKind } from '../../core/index.js';
import { FileStamps } from './file-stamps.js';
import type { ToolEntry } from './source.js';
import { PRIVATE_FOLDER_MODE } from '../private-cache.js';

/**
 * What a folder source's last snapshot saw: its commit, each kind's folders (in `ENTRY_KINDS` order) with the stamp of
 * the kind's folder when they were listed (a row forgotten: listed again next time), its entries in order with their
 * oids, and each definition's stamp when it vouched for its oid (forgotten: read again next time).
 */
export interface FolderRecord {
  commit: string;
  lists: ReadonlyArray<readonly string[]>;
  listingStamps: FileStamps;
  entries: readonly ToolEntry[];
  stamps: FileStamps;
}

// The file's layout: a header line of JSON (which root, size limit and byte order it is of, its commit, each kind's
// count, the body's length and SHA-1), then the body: the listing stamps, the entries' stamps, and each entry's folder
// and oid as UTF-8, each ended by a NUL (a folder's name may hold a newline, never a NUL or a slash). A file of another
// layout, root, size limit or byte order, or whose body is not the one its header hashed, is not used: the folder's
// files are then read as at a first start, never misread.
const LAYOUT = 1;

interface RecordHeader {
  layout: number;
  root: string;
  maxBytes: number;
  endianness: string;
  commit: string;
  counts: number[];
  bytes: number;
  sha1: string;
}

// numbers this process's temporary files
let writes = 0;

/** Writes `record` of the folder `root` to `path` atomically (a temporary file renamed over it). */
export async function writeFolderRecord(path: string, root: string, maxBytes: number, record: FolderRecord): Promise<void> {
  const names = record.entries.map((entry) => `${entry.folder}\0${entry.oid}\0`).join('');
  const body = Buffer.concat([bytesOf(record.listingStamps.values), bytesOf(record.stamps.values), Buffer.from(names, 'utf8')]);
  const header: RecordHeader = {
    layout: LAYOUT,
    root,
    maxBytes,
    endianness: endianness(),
    commit: record.commit,
    counts: record.lists.map((folders) => folders.length),
    bytes: body.length,
    sha1: createHash('sha1').update(body).digest('hex'),
  };
  await mkdir(dirname(path), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const temporary = `${path}.${process.pid}.${(writes += 1)}.tmp`;
  try {
    await writeFile(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]));
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The record of the folder `root` kept at `path` under the size limit `maxBytes`; undefined when there is none, or none to trust. */
export async function readFolderRecord(path: string, root: string, maxBytes: number): Promise<FolderRecord | undefined> {
  let file: Buffer;
  try {
    file = await readFile(path);
  } catch {
    return undefined;
  }
  try {
    return parseRecord(file, root, maxBytes);
  } catch {
    return undefined;
  }
}

function parseRecord(file: Buffer, root: string, maxBytes: number): FolderRecord | undefined {
  const newline = file.indexOf(10);
  if (newline < 0) return undefined;
  const header = JSON.parse(file.subarray(0, newline).toString('utf8')) as RecordHeader;
  const body = file.subarray(newline + 1);
  if (header.layout !== LAYOUT || header.root !== root || header.maxBytes !== maxBytes || header.endianness !== endianness()) return undefined;
  if (!/^folder:[0-9a-f]{40}$/.test(header.commit) || !Array.isArray(header.counts) || header.counts.length !== ENTRY_KINDS.length) return undefined;
  if (!header.counts.every((count) => Number.isSafeInteger(count) && count >= 0)) return undefined;
  if (body.length !== header.bytes || createHash('sha1').update(body).digest('hex') !== header.sha1) return undefined;
  const count = header.counts.reduce((sum, each) => sum + each, 0);
  const listingBytes = FileStamps.valuesFor(ENTRY_KINDS.length) * 8;
  const stampBytes = FileStamps.valuesFor(count) * 8;
  if (body.length < listingBytes + stampBytes) return undefined;
  const listingStamps = new FileStamps(ENTRY_KINDS.length, valuesOf(body.subarray(0, listingBytes)));
  const stamps = new FileStamps(count, valuesOf(body.subarray(listingBytes, listingBytes + stampBytes)));
  const fields = body.subarray(listingBytes + stampBytes).toString('utf8').split('\0');
  if (fields.length !== count * 2 + 1 || fields[count * 2] !== '') return undefined;
  const lists: string[][] = [];
  const entries: ToolEntry[] = [];
  let position = 0;
  for (const [at, kind] of ENTRY_KINDS.entries()) {
    const folders: string[] = [];
    for (let left = header.counts[at]!; left > 0; left--, position++) {
      const folder = fields[position * 2]!;
      const oid = fields[position * 2 + 1]!;
      // a name a listing gives, in its order: never a path out of the folder
      if (!isFolderName(folder, kind) || (folders.length > 0 && !(folders[folders.length - 1]! < folder))) return undefined;
      // a blob's id or a verdict's (a regular expression over 100,000 of them cost ~6 ms of each start)
      if (oid.length !== 40 && !oid.startsWith('missing:')) return undefined;
      // only a definition read whole vouches for its oid by its stat
      if (oid.startsWith('missing:')) stamps.forget(position);
      folders.push(folder);
      entries.push(kind === 'tool' ? { folder, oid } : { kind, folder, oid });
    }
    lists.push(folders);
  }
  return { commit: header.commit, lists, listingStamps, entries, stamps };
}

// what a listing of that kind can give: a flat kind's `..` is the file `...hdlp`, a folder kind's would be a way out
function isFolderName(name: string, kind: EntryKind): boolean {
  return name.length > 0 && !name.includes('/') && (ENTRY_LAYOUT[kind].flat || (name !== '.' && name !== '..'));
}

function bytesOf(values: BigInt64Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

// copied: the body's offset in the file is not a multiple of 8
function valuesOf(bytes: Buffer): BigInt64Array {
  const values = new BigInt64Array(bytes.length / 8);
  Buffer.from(values.buffer).set(bytes);
  return values;
}
