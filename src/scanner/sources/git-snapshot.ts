import { promises } from 'node:fs';
import { join } from 'node:path';
import { ENTRY_KINDS, ENTRY_LAYOUT, letGo, type Diagnostic, type EntryKind } from '../../core/index.js';
import { loadGit } from './git-module.js';
import { tooLargeMessage } from '../yaml-mapping.js';
import { listObjects, type ObjectListing } from './object-listing.js';
import { ObjectReader } from './object-reader.js';
import { MAX_OBJECT_BYTES, PackStore, type GitObject } from './pack-store.js';
import type { DefinitionFile } from '../parse-tool-definition.js';
import { diffEntryTrees } from './entry-diff.js';
import { walkClaims } from './claim-history.js';
import { rootItemsToCheck, rootPolicyStrays, strayPolicies, type RootItem } from './stray-policies.js';
import { missingDefinition } from './missing-definition.js';
import { findItem } from './git-tree.js';
import { definitionPath, type EntryDiff, type Snapshot, type ToolEntry } from './source.js';

/**
 * A repository's object store: one isomorphic-git `cache` for its fetches (without it each call re-reads and
 * re-checks the pack: 10× slower at 1,000 files), and the packs the scanner reads definitions from.
 */
export interface ObjectStore {
  gitdir: string;
  cache: object;
  packs?: PackStore;
  /** the objects the last fetch brought, resolved as it indexed them: for the snapshot that follows it, once */
  fetched?: Map<string, GitObject>;
  /**
   * the trees the last snapshot listed (the root and its `tools/`, `toolsets/`, `skills/`, `policies/`): the next
   * fetch's thin pack sends their next versions as deltas against them, so they are its bases without a pack read
   * (kept only for a store that fetches: `keepListed`)
   */
  listed?: Map<string, GitObject>;
  keepListed?: boolean;
}

const SYMLINK_MODE = '120000';
const SUBMODULE_MODE = '160000';
const TREE_MODE = '40000';

/** Lists `tools/`, `toolsets/`, `skills/` and `policies/` at a commit from the object store (no working tree), reading each definition on demand. */
export async function readGitSnapshot(store: ObjectStore, commit: string, maxBytes: number): Promise<Snapshot> {
  store.packs ??= new PackStore(store.gitdir);
  const listing = await listObjects(store.gitdir, store.packs);
  const fetched = store.fetched ?? new Map<string, GitObject>();
  store.fetched = undefined;
  const objects = new ObjectReader(store.gitdir, store.packs, (oid) => listing.mayBeLoose(oid), MAX_OBJECT_BYTES, fetched);
  // a flat entry (policies/<name>.hdlp) is a blob: its mode says whether it is a symlink
  const flatModes = new Map<string, string>();
  // what a listing found meant as policies but not read: at the root (`policies -> rules`, `Policies/`) and under policies/
  let listedStrays: Diagnostic[] | undefined;
  const listOnce = async (): Promise<ToolEntry[]> => {
    const listed = new Map<string, GitObject>();
    const readTree = async (oid: string): Promise<GitObject> => {
      const tree = await objects.read(oid, 'tree');
      listed.set(oid, tree);
      return tree;
    };
    const root = await treeItems((await readTree(await treeOf(objects, commit))).content);
    const entriesListed: ToolEntry[] = [];
    let strays = await rootStrays(objects, root);
    for (const kind of ENTRY_KINDS) {
      const { folder: top, file, flat } = ENTRY_LAYOUT[kind];
      const folder = root.find((entry) => entry.name === top && entry.mode === TREE_MODE);
      if (!folder) continue;
      const items = await treeItems((await readTree(folder.oid)).content);
      if (kind === 'policy') strays = strays.concat(strayPolicies(items.map((item) => ({ name: item.name, folder: item.mode === TREE_MODE }))));
      const entries = flat
        ? items.filter((item) => item.mode !== TREE_MODE && item.name.endsWith(file) && item.name.length > file.length).map((item) => {
            flatModes.set(`${kind}/${item.name.slice(0, -file.length)}`, item.mode);
            return { folder: item.name.slice(0, -file.length), oid: item.oid };
          })
        : items.filter((item) => item.mode === TREE_MODE).map((item) => ({ folder: item.name, oid: item.oid }));
      entries.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
      // one at a time: a spread passes each entry as an argument, past ~120,000 of them a RangeError (stack overflow)
      for (const entry of entries) entriesListed.push(kind === 'tool' ? entry : { kind, ...entry });
    }
    if (store.keepListed) store.listed = listed;
    listedStrays = strays;
    return entriesListed;
  };
  const diffOnce = async (since: string): Promise<EntryDiff | undefined> => {
    // the trees the last snapshot listed are read from memory, as are the ones this fetch brought
    const previous = store.listed;
    const read = new Map<string, GitObject>();
    const readTree = async (oid: string): Promise<GitObject> => {
      const tree = read.get(oid) ?? previous?.get(oid) ?? (await objects.read(oid, 'tree'));
      read.set(oid, tree);
      return tree;
    };
    const before = await readTree(await treeOf(objects, since));
    const rootOid = await treeOf(objects, commit);
    const after = await readTree(rootOid);
    const diff = await diffEntryTrees(before.content, after.content, async (oid) => (await readTree(oid)).content, flatModes);
    if (diff && store.keepListed) {
      // the next fetch's thin pack has deltas against this commit's trees, as after a listing: keep those (an
      // unchanged folder's tree is the last snapshot's), not the older ones
      const listed = new Map<string, GitObject>([[rootOid, after]]);
      for (const item of await treeItems(after.content)) {
        if (item.mode === TREE_MODE && ENTRY_KINDS.some((kind) => ENTRY_LAYOUT[kind].folder === item.name)) listed.set(item.oid, await readTree(item.oid));
      }
      store.listed = listed;
    }
    return diff;
  };
  const straysOnce = async (): Promise<Diagnostic[]> => {
    if (listedStrays !== undefined) return listedStrays;
    // not listed (a cached commit, a tree comparison): read the two trees, and let go of the packs again as a scan does
    try {
      return await readStrays();
    } finally {
      store.packs?.release();
    }
  };
  const readStrays = async (): Promise<Diagnostic[]> => {
    const root = await treeItems((await objects.read(await treeOf(objects, commit), 'tree')).content);
    const strays = await rootStrays(objects, root);
    const folder = root.find((entry) => entry.name === ENTRY_LAYOUT.policy.folder && entry.mode === TREE_MODE);
    if (!folder) return strays;
    return [...strays, ...strayPolicies((await treeItems((await objects.read(folder.oid, 'tree')).content)).map((item) => ({ name: item.name, folder: item.mode === TREE_MODE })))];
  };
  return {
    commit,
    listEntries: () => retryAfterRepack(listing, listOnce),
    strays: () => retryAfterRepack(listing, straysOnce),
    // any failure (that commit no longer held, a clone started over since, an old tree git would refuse, a repack
    // meanwhile) leaves the caller to list every entry, which reads only the new commit and retries after a repack
    diffEntries: (since) => diffOnce(since).catch(() => undefined),
    read: (entry) =>
      retryAfterRepack<DefinitionFile | Diagnostic>(listing, () =>
        entry.kind && ENTRY_LAYOUT[entry.kind].flat ? readFlatDefinition(objects, maxBytes, entry, flatModes.get(`${entry.kind}/${entry.folder}`)) : readDefinition(objects, maxBytes, entry),
      ),
    history: (claims) => retryAfterRepack(listing, () => walkClaims(objects, store.gitdir, commit, claims)),
    release: () => {
      fetched.clear();
      store.packs?.release();
    },
  };
}

/** What at the root tree is meant as policies/ but is not a tree named so (a link, a blob, a submodule, `Policies/`): see `rootPolicyStrays`. */
async function rootStrays(objects: ObjectReader, root: ReadonlyArray<{ mode: string; name: string; oid: string }>): Promise<Diagnostic[]> {
  const typeOf = (mode: string): RootItem['type'] => (mode === TREE_MODE ? 'folder' : mode === SYMLINK_MODE ? 'symlink' : mode === SUBMODULE_MODE ? 'submodule' : 'file');
  // a slip of tools/ (`tool/`) is read down to where a definition would sit: one holding only scripts is no slip
  const listFolder = async (path: readonly string[]): Promise<Array<{ name: string; folder: boolean }>> => {
    let items: ReadonlyArray<{ mode: string; name: string; oid: string }> = root;
    for (const name of path) {
      const tree = items.find((item) => item.name === name && item.mode === TREE_MODE);
      if (!tree) return [];
      items = await treeItems((await objects.read(tree.oid, 'tree')).content);
    }
    return items.map((item) => ({ name: item.name, folder: item.mode === TREE_MODE }));
  };
  const checked = await rootItemsToCheck(root, (item) => item.mode === TREE_MODE, listFolder);
  return rootPolicyStrays(checked.map((item) => ({ name: item.name, type: typeOf(item.mode) })));
}

/**
 * Runs a read; if it fails, lists the object store again and runs it again. Git's background `gc --auto`
 * (started by a large commit) moves loose objects into a new pack and deletes packs it replaced: a reader that
 * listed the store before that finds neither copy ("Could not find …", or a pack file gone); a repack and a
 * prune may each move it once more meanwhile. A read that fails `READ_ATTEMPTS` times fails for good (a corrupt
 * object is still that file's READ_FAILED).
 */
async function retryAfterRepack<T>(listing: ObjectListing, read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const seen = listing.generation;
    try {
      return await read();
    } catch (error) {
      if (attempt === READ_ATTEMPTS) throw error;
      await listing.refresh(seen);
    }
  }
}

const READ_ATTEMPTS = 3;

/** The tree a commit points at (its first line, `tree <oid>`), through annotated tags (`object <oid>`) as git peels them. */
async function treeOf(objects: ObjectReader, commit: string): Promise<string> {
  let object = await objects.read(commit);
  for (let depth = 0; object.type === 'tag' && depth < MAX_TAG_DEPTH; depth++) {
    const target = /^object ([0-9a-f]{40})\n/.exec(object.content.toString('latin1', 0, 48));
    if (!target) throw new Error(`tag ${commit} names no object`);
    object = await objects.read(target[1]!);
  }
  const match = object.type === 'commit' ? /^tree ([0-9a-f]{40})\n/.exec(object.content.toString('latin1', 0, 46)) : null;
  if (!match) throw new Error(`${commit} is not a commit (a ${object.type})`);
  return match[1]!;
}

// a tag of a tag of …: git allows chains, none sensible is this long
const MAX_TAG_DEPTH = 16;

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

async function readFlatDefinition(objects: ObjectReader, maxBytes: number, entry: ToolEntry, mode: string | undefined) {
  const kind: EntryKind = entry.kind!;
  const path = definitionPath(entry.folder, kind);
  const at = { file: path, line: 1, column: 1 };
  if (mode === SYMLINK_MODE || mode === SUBMODULE_MODE) return { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${path} must be a regular file (not a symlink or submodule)` } satisfies Diagnostic;
  const object = await objects.readUpTo(entry.oid, 'blob', maxBytes);
  if (typeof object === 'number') return { ...at, severity: 'error', code: 'FILE_TOO_LARGE', message: tooLargeMessage(object, maxBytes, path) } satisfies Diagnostic;
  return { kind, path, folder: entry.folder, oid: entry.oid, content: object.content };
}

async function readDefinition(objects: ObjectReader, maxBytes: number, entry: ToolEntry) {
  const kind: EntryKind = entry.kind ?? 'tool';
  const { folder: top, file: name } = ENTRY_LAYOUT[kind];
  const path = definitionPath(entry.folder, kind);
  // the one name looked for by its bytes: a list of the folder's items made strings of every name, mode and id. A
  // long folder is listed in turns as before: one pass over it would hold the event loop
  const tree = (await objects.read(entry.oid, 'tree')).content;
  const file = tree.length <= FOUND_AT_ONCE ? findItem(tree, name) : (await treeItems(tree)).find((item) => item.name === name);
  const at = { file: path, line: 1, column: 1 };
  if (!file) return missingDefinition(kind, entry.folder);
  if (file.mode === TREE_MODE || file.mode === SYMLINK_MODE || file.mode === SUBMODULE_MODE) {
    return { ...at, severity: 'error', code: 'NOT_A_FILE', message: `${name} must be a regular file (not a symlink, folder or submodule)` } satisfies Diagnostic;
  }
  // the size from the object's header: a huge blob is refused without being inflated
  const object = await objects.readUpTo(file.oid, 'blob', maxBytes);
  if (typeof object === 'number') return { ...at, severity: 'error', code: 'FILE_TOO_LARGE', message: tooLargeMessage(object, maxBytes, name) } satisfies Diagnostic;
  const { content } = object;
  return { ...(kind === 'tool' ? {} : { kind }), path, folder: entry.folder, oid: entry.oid, content };
}

// a tool's folder of at most this many bytes of tree (~1,000 files) is searched for its definition in one pass
const FOUND_AT_ONCE = 32 * 1024;

/** Refuses SHA-256 repositories: isomorphic-git reads SHA-1 object stores only. */
export async function objectFormat(gitdir: string): Promise<string> {
  // a config that never names the setting is SHA-1, said without loading isomorphic-git to parse it (issue #18: ~0.1 s of every start)
  const config = await promises.readFile(join(gitdir, 'config'), 'utf8').catch(() => undefined);
  if (config !== undefined && !/objectformat/i.test(config)) return 'sha1';
  const git = await loadGit();
  const fs = { promises };
  const format = await git.getConfig({ fs, gitdir, path: 'extensions.objectformat' });
  return typeof format === 'string' ? format.toLowerCase() : 'sha1';
}
