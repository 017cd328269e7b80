import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import { ENTRY_KINDS, ENTRY_LAYOUT, letGo, type Diagnostic, type EntryKind } from '../../core/index.js';
import { loadGit } from './git-module.js';
import { tooLargeMessage } from '../yaml-mapping.js';
import { snapshotFs, type ObjectStoreFs, type PromiseFs } from './object-store-fs.js';
import { ObjectSizes } from './object-size.js';
import type { DefinitionFile } from '../parse-tool-definition.js';
import { definitionPath, type Snapshot, type ToolEntry } from './source.js';

/** An isomorphic-git object store; one `cache` per repository keeps pack reads fast (10× at 1,000 files). */
export interface ObjectStore {
  gitdir: string;
  cache: object;
}

const SYMLINK_MODE = '120000';

/** Lists `tools/`, `toolsets/`, `skills/` and `policies/` at a commit from the object store (no working tree), reading each definition on demand. */
export async function readGitSnapshot(store: ObjectStore, commit: string, maxBytes: number): Promise<Snapshot> {
  const { gitdir, cache } = store;
  const git = await loadGit();
  const fs = await snapshotFs(gitdir);
  const sizes = new ObjectSizes(gitdir, (oid) => fs.mayBeLoose(oid));
  // a flat entry (policies/<name>.hdlp) is a blob: its mode says whether it is a symlink
  const flatModes = new Map<string, string>();
  const listOnce = async (): Promise<ToolEntry[]> => {
    const { commit: parsed } = await git.readCommit({ fs, gitdir, oid: commit, cache });
    const root = await git.readTree({ fs, gitdir, oid: parsed.tree, cache });
    const listed: ToolEntry[] = [];
    for (const kind of ENTRY_KINDS) {
      const { folder: top, file, flat } = ENTRY_LAYOUT[kind];
      const folder = root.tree.find((entry) => entry.path === top && entry.type === 'tree');
      if (!folder) continue;
      // read raw and parsed here: git.readTree checks and copies every entry (40 ms at 10,000 tools; this takes 6)
      const items = await treeItems(await readTreeObject(store, fs, folder.oid));
      const entries = flat
        ? items.filter((item) => item.mode !== TREE_MODE && item.name.endsWith(file) && item.name.length > file.length).map((item) => {
            flatModes.set(`${kind}/${item.name.slice(0, -file.length)}`, item.mode);
            return { folder: item.name.slice(0, -file.length), oid: item.oid };
          })
        : items.filter((item) => item.mode === TREE_MODE).map((item) => ({ folder: item.name, oid: item.oid }));
      entries.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
      listed.push(...(kind === 'tool' ? entries : entries.map((entry) => ({ kind, ...entry }))));
    }
    return listed;
  };
  const listEntries = () => retryAfterRepack(fs, sizes, listOnce);
  return {
    commit,
    listEntries,
    read: (entry) =>
      retryAfterRepack<DefinitionFile | Diagnostic>(fs, sizes, () =>
        entry.kind && ENTRY_LAYOUT[entry.kind].flat ? readFlatDefinition(store, fs, sizes, maxBytes, entry, flatModes.get(`${entry.kind}/${entry.folder}`)) : readDefinition(store, fs, sizes, maxBytes, entry),
      ),
  };
}

/**
 * Runs a read; if it fails, lists the object store again and runs it again. Git's background `gc --auto`
 * (started by a large commit) moves loose objects into a new pack and deletes packs it replaced: a reader that
 * listed the store before that finds neither copy ("Could not find …", or a pack file gone); a repack and a
 * prune may each move it once more meanwhile. A read that fails `READ_ATTEMPTS` times fails for good (a corrupt
 * object is still that file's READ_FAILED).
 */
async function retryAfterRepack<T>(fs: ObjectStoreFs, sizes: ObjectSizes, read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const seen = fs.generation;
    try {
      return await read();
    } catch (error) {
      if (attempt === READ_ATTEMPTS) throw error;
      await fs.refresh(seen);
      sizes.forget();
    }
  }
}

const READ_ATTEMPTS = 3;

/**
 * The content of a tree object. A loose one (what a new commit writes) is inflated by zlib in libuv's threads:
 * isomorphic-git inflates in JavaScript on the event loop, which for `tools/` at 100,000 tools is a stall of
 * ~200 ms in every rescan. A packed one comes from isomorphic-git, which must resolve deltas.
 */
async function readTreeObject(store: ObjectStore, fs: PromiseFs, oid: string): Promise<Uint8Array> {
  const { gitdir, cache } = store;
  const git = await loadGit();
  const read = await git.readObject({ fs, gitdir, oid, cache, format: 'deflated' });
  if (read.format === 'content') return read.object as Uint8Array;
  const wrapped = read.format === 'deflated' ? await inflateAsync(read.object as Uint8Array) : Buffer.from(read.object as Uint8Array);
  // what isomorphic-git checks too: the bytes are the object asked for, and a tree
  if (createHash('sha1').update(wrapped).digest('hex') !== oid) throw new Error(`SHA check failed for object ${oid}`);
  const nul = wrapped.indexOf(0);
  if (nul < 0 || !wrapped.subarray(0, nul).toString('latin1').startsWith('tree ')) throw new Error(`object ${oid} is not a tree`);
  return wrapped.subarray(nul + 1);
}

const inflateAsync = promisify(inflate);

const TREE_MODE = '40000';

/** The entries of a raw git tree object (`<mode> <name>\0<20-byte oid>` repeated), letting the event loop go every few thousand. */
async function treeItems(raw: Uint8Array): Promise<Array<{ mode: string; name: string; oid: string }>> {
  // decoded by Buffer ranges, not a TextDecoder over a subarray per field: 2-4× faster at 10,000 entries
  const tree = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const items: Array<{ mode: string; name: string; oid: string }> = [];
  let position = 0;
  for (let read = 1; position < tree.length; read++) {
    if (read % 4000 === 0) await letGo();
    const space = tree.indexOf(0x20, position);
    const nul = tree.indexOf(0x00, space);
    if (space < 0 || nul < 0 || nul + 21 > tree.length) throw new Error('malformed git tree object');
    // a subtree oid changes whenever anything in the folder does: unchanged oid, nothing to re-read
    items.push({ mode: tree.toString('latin1', position, space), name: tree.toString('utf8', space + 1, nul), oid: tree.toString('hex', nul + 1, nul + 21) });
    position = nul + 21;
  }
  return items;
}

async function readFlatDefinition(store: ObjectStore, fs: PromiseFs, sizes: ObjectSizes, maxBytes: number, entry: ToolEntry, mode: string | undefined) {
  const { gitdir, cache } = store;
  const git = await loadGit();
  const kind: EntryKind = entry.kind!;
  const path = definitionPath(entry.folder, kind);
  const at = { file: path, line: 1, column: 1 };
  if (mode === SYMLINK_MODE || mode === '160000') return { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${path} must be a regular file (not a symlink or submodule)` } satisfies Diagnostic;
  const size = await sizes.size(entry.oid);
  if (size !== undefined && size > maxBytes) return { ...at, severity: 'error', code: 'FILE_TOO_LARGE', message: tooLargeMessage(size, maxBytes, path) } satisfies Diagnostic;
  const { blob } = await git.readBlob({ fs, gitdir, oid: entry.oid, cache });
  return { kind, path, folder: entry.folder, oid: entry.oid, content: blob };
}

async function readDefinition(store: ObjectStore, fs: PromiseFs, sizes: ObjectSizes, maxBytes: number, entry: ToolEntry) {
  const { gitdir, cache } = store;
  const git = await loadGit();
  const kind: EntryKind = entry.kind ?? 'tool';
  const { folder: top, file: name } = ENTRY_LAYOUT[kind];
  const path = definitionPath(entry.folder, kind);
  const folder = await git.readTree({ fs, gitdir, oid: entry.oid, cache });
  const file = folder.tree.find((item) => item.path === name);
  const at = { file: path, line: 1, column: 1 };
  if (!file) {
    return {
      ...at,
      file: `${top}/${entry.folder}/`,
      severity: 'warning',
      code: 'MISSING_DEFINITION',
      message: `${top}/${entry.folder}/ has no ${name}, so it is not a ${kind}`,
    } satisfies Diagnostic;
  }
  if (file.type !== 'blob' || file.mode === SYMLINK_MODE) {
    return { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${name} must be a regular file (not a symlink, folder or submodule)` } satisfies Diagnostic;
  }
  // the size from the object's header: a huge blob is refused without being inflated
  const size = await sizes.size(file.oid);
  if (size !== undefined && size > maxBytes) return { ...at, severity: 'error', code: 'FILE_TOO_LARGE', message: tooLargeMessage(size, maxBytes, name) } satisfies Diagnostic;
  const { blob } = await git.readBlob({ fs, gitdir, oid: file.oid, cache });
  return { ...(kind === 'tool' ? {} : { kind }), path, folder: entry.folder, oid: entry.oid, content: blob };
}

/** Refuses SHA-256 repositories: isomorphic-git reads SHA-1 object stores only. */
export async function objectFormat(gitdir: string): Promise<string> {
  const git = await loadGit();
  const fs = { promises: (await import('node:fs')).promises };
  const format = await git.getConfig({ fs, gitdir, path: 'extensions.objectformat' });
  return typeof format === 'string' ? format.toLowerCase() : 'sha1';
}
