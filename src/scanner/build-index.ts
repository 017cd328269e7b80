import { placeAliasConflicts, placeAliasConflictsReading, textOfFile, type AliasToPlace } from './alias-positions.js';
import { groupNamesTool } from './group-names.js';
import { compareToolNames, ENTRY_LAYOUT, entryPath, foldedKey, type ContestedName, type Diagnostic, type EntryKind, type PolicyDefinition, type SkillDefinition, type ToolDefinition, type ToolIndex, type ToolsetDefinition } from '../core/index.js';
import { brokenTools, checkMembers } from './check-members.js';
import { checkPolicies } from './check-policies.js';
import { parsePolicy, type PolicyMember } from './parse-policy.js';
import { parseSkill } from './parse-skill.js';
import { parseToolDefinition, type DefinitionFile } from './parse-tool-definition.js';
import { guardParse, type ParseOptions } from './yaml-mapping.js';
import { parseToolset } from './parse-toolset.js';
import { caseTwinWarnings, closedNote, establishedIn, preferredAliasHolder, preferredClaim, type Established } from './name-claims.js';
import { noting, settledByHistory, type Unsettled } from './name-history.js';
import type { ClaimHistory } from './sources/claim-history.js';
import type { ToolEntry } from './sources/source.js';
import type { Position } from './yaml-locator.js';

interface EntryBase {
  folder: string;
  oid: string;
  diagnostics: Diagnostic[];
  /** where `name` is written, for collision reports */
  name_position?: Position;
}

/** What assembling an index reads of a tool: its names, its group and where it is written. */
export type ToolStub = Pick<ToolDefinition, 'name' | 'aliases' | 'group'> & { source: Pick<ToolDefinition['source'], 'path'> };

/** An entry whose tool is `T`: a whole definition in a `ScanEntry`, only what assembling needs in an `EntrySummary`. */
export type EntryOf<T extends ToolStub> =
  | (EntryBase & { kind?: 'tool'; tool: T | null })
  | OtherEntry;

/** What one entry folder produced at one oid: reused as is while the oid does not change. A tool when `kind` is absent. */
export type ScanEntry = EntryOf<ToolDefinition>;

/** A toolset, skill or policy entry: held whole by an index and its summaries alike. */
export type OtherEntry =
  | (EntryBase & { kind: 'toolset'; toolset: ToolsetDefinition | null; member_positions?: Position[] })
  | (EntryBase & { kind: 'skill'; skill: SkillDefinition | null; toolset_position?: Position })
  | (EntryBase & { kind: 'policy'; policy: PolicyDefinition | null; members?: PolicyMember[] });

/** The kind of an entry (entries cached before kinds existed are tools). */
export function entryKind(entry: { kind?: EntryKind }): EntryKind {
  return entry.kind ?? 'tool';
}

/** Parses one definition file into the entry an index is built from; never throws: every problem is a diagnostic. */
export function parseEntry(file: DefinitionFile, options: ParseOptions = {}): ScanEntry {
  const kind = entryKind(file);
  return guardParse(file, entryFileName(kind), () => parseKind(kind, file, options), (diagnostic) => failedEntry(kind, file.folder, file.oid, diagnostic));
}

function parseKind(kind: EntryKind, file: DefinitionFile, options: ParseOptions): ScanEntry {
  const base = { folder: file.folder, oid: file.oid };
  switch (kind) {
    case 'toolset': {
      const parsed = parseToolset(file, options);
      return {
        ...base, kind: 'toolset', toolset: parsed.toolset, diagnostics: parsed.diagnostics,
        ...(parsed.namePosition ? { name_position: parsed.namePosition } : {}),
        ...(parsed.memberPositions ? { member_positions: parsed.memberPositions } : {}),
      };
    }
    case 'skill': {
      const parsed = parseSkill(file, options);
      return {
        ...base, kind: 'skill', skill: parsed.skill, diagnostics: parsed.diagnostics,
        ...(parsed.namePosition ? { name_position: parsed.namePosition } : {}),
        ...(parsed.toolsetPosition ? { toolset_position: parsed.toolsetPosition } : {}),
      };
    }
    case 'policy': {
      const parsed = parsePolicy(file, options);
      return {
        ...base, kind: 'policy', policy: parsed.policy, diagnostics: parsed.diagnostics,
        ...(parsed.namePosition ? { name_position: parsed.namePosition } : {}),
        ...(parsed.members ? { members: parsed.members } : {}),
      };
    }
    case 'tool': {
      const parsed = parseToolDefinition(file, options);
      return { ...base, tool: parsed.tool, diagnostics: parsed.diagnostics, ...(parsed.namePosition ? { name_position: parsed.namePosition } : {}) };
    }
  }
}

function entryFileName(kind: EntryKind): string {
  return kind === 'policy' ? 'the policy' : ENTRY_LAYOUT[kind].file;
}

/** An entry that holds a problem reading its file (missing, not a regular file) and nothing else. */
export function failedEntry(kind: EntryKind, folder: string, oid: string, diagnostic: Diagnostic): ScanEntry {
  const base = { folder, oid, diagnostics: [diagnostic] };
  if (kind === 'toolset') return { ...base, kind, toolset: null };
  if (kind === 'skill') return { ...base, kind, skill: null };
  if (kind === 'policy') return { ...base, kind, policy: null };
  return { ...base, tool: null };
}

/**
 * Assembles an index from per-folder results: of definitions claiming one name, the one `previous` (the index served
 * before, if any) served keeps it, else one whose folder is its name, else the first by path; the rest are reported;
 * a toolset naming an unknown tool or group, or a skill an unknown toolset, is reported and left out. An alias
 * conflict is reported at the alias where `files` holds its definition (the files the entries were parsed from).
 */
export function buildIndex(source: string, commit: string, entries: readonly ScanEntry[], scannedAt: string, files: readonly DefinitionFile[] = [], previous?: ToolIndex): ToolIndex {
  const steps = assemble(source, commit, entries, scannedAt, establishedIn(previous));
  let step = steps.next();
  while (!step.done) step = steps.next();
  const { index, toPlace } = step.value;
  if (toPlace.length === 0) return index;
  const byFolder = new Map(files.filter((file) => entryKind(file) === 'tool').map((file) => [file.folder, file]));
  const textOf = (entry: ToolEntry): string | undefined => {
    const file = byFolder.get(entry.folder);
    return file && file.oid === entry.oid ? textOfFile(file) : undefined;
  };
  return { ...index, warnings: placeAliasConflicts(index.warnings, toPlace, textOf) };
}

/** Reads an entry's definition again: how an alias conflict is placed at its alias once the index is assembled. */
export type ReadEntry = (entry: ToolEntry) => Promise<DefinitionFile | Diagnostic>;

/**
 * The same index, built a slice at a time with the event loop let go between slices: at 100,000 tools a
 * rescan's index build would otherwise hold every request for the whole of it.
 */
export async function buildIndexLettingGo(source: string, commit: string, entries: readonly ScanEntry[], scannedAt: string, read?: ReadEntry, previous?: ToolIndex, history?: ClaimHistory): Promise<ToolIndex> {
  return assembleLettingGo(source, commit, entries, scannedAt, read, previous, history);
}

/**
 * An index assembled the same way from entries whose tools are `T` (whole definitions, or summaries of them), a slice
 * at a time; with `read`, each alias conflict is placed at its alias (its file read again: conflicts are few). With
 * `history`, a clash `previous` does not settle (none at a start with an empty cache) goes to the claim git history
 * holds first, and the index is assembled again: only at such a clash.
 */
export async function assembleLettingGo<T extends ToolStub>(source: string, commit: string, entries: readonly EntryOf<T>[], scannedAt: string, read?: ReadEntry, previous?: ToolIndex, history?: ClaimHistory): Promise<IndexOf<T>> {
  const established = establishedIn(previous);
  const unsettled: Unsettled = { tools: new Set(), toolsets: new Set() };
  let assembled = await assembleSteps(assemble(source, commit, entries, scannedAt, history ? noting(established, unsettled) : established));
  const settled = history && (unsettled.tools.size > 0 || unsettled.toolsets.size > 0) ? await settledByHistory(established, unsettled, entries, history) : undefined;
  if (settled) assembled = await assembleSteps(assemble(source, commit, entries, scannedAt, settled));
  const { index, toPlace } = assembled;
  if (toPlace.length === 0 || read === undefined) return index;
  return { ...index, warnings: await placeAliasConflictsReading(index.warnings, toPlace, read) };
}

// runs an assembly, letting the event loop go between its slices
async function assembleSteps<R>(steps: Generator<void, R>): Promise<R> {
  let step = steps.next();
  while (!step.done) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    step = steps.next();
  }
  return step.value;
}

// entries handled between two pauses (a few milliseconds of work)
const SLICE = 2000;

/** An index whose tools are `T`. */
export type IndexOf<T extends ToolStub> = Omit<ToolIndex, 'tools'> & { tools: T[] };

function* assemble<T extends ToolStub>(source: string, commit: string, entries: readonly EntryOf<T>[], scannedAt: string, established: Established): Generator<void, { index: IndexOf<T>; toPlace: AliasToPlace[] }> {
  const tools: T[] = [];
  // each tool's entry (its folder and oid): where an alias conflict's file is read again to place it
  const toolEntries: ToolEntry[] = [];
  const toPlace: AliasToPlace[] = [];
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  // names differing only in case would be the same tool to a human and to case-insensitive file systems: each
  // lower-cased name's place in `tools`, and the definitions left out of it (reported once every claim is known)
  const owners = new Map<string, T>();
  const ownerAt = new Map<string, number>();
  const losers: Array<{ key: string; entry: EntryOf<T> & { tool: T } }> = [];
  const others: OtherEntry[] = [];
  const heldName = (key: string): string | undefined => established.name(key);
  const nameNote = (key: string) => established.note?.('name', key);
  // names no claim keeps: git history could not date a claim that came in through a merge (review Z2, Z2-2)
  const closed = new Set<string>();
  for (let position = 0; position < entries.length; position++) {
    if (position % SLICE === SLICE - 1) yield;
    const entry = entries[position]!;
    for (const diagnostic of entry.diagnostics) (diagnostic.severity === 'error' ? errors : warnings).push(diagnostic);
    if (entry.kind === 'toolset' || entry.kind === 'skill' || entry.kind === 'policy') {
      others.push(entry);
      continue;
    }
    const tool = entry.tool;
    if (!tool) continue;
    const key = tool.name.toLowerCase();
    const at = ownerAt.get(key);
    if (at === undefined) {
      ownerAt.set(key, tools.length);
      owners.set(key, tool);
      tools.push(tool);
      toolEntries.push(entry);
      continue;
    }
    if (closedNote(nameNote(key))) closed.add(key);
    const held = { folder: toolEntries[at]!.folder, tool: tools[at]! };
    const { kept } = preferredClaim(held, { folder: entry.folder, tool }, heldName);
    if (kept === held) {
      losers.push({ key, entry: { ...entry, tool } });
      continue;
    }
    losers.push({ key, entry: { ...(toolEntries[at] as EntryOf<T>), tool: held.tool } as EntryOf<T> & { tool: T } });
    owners.set(key, tool);
    tools[at] = tool;
    toolEntries[at] = entry;
  }
  for (const tool of tools) for (const alias of tool.aliases) if (owners.has(foldedKey(alias)) && closedNote(established.note?.('alias', foldedKey(alias)))) closed.add(foldedKey(alias));
  for (const key of closed) {
    const at = ownerAt.get(key);
    if (at === undefined || !owners.has(key)) continue;
    losers.push({ key, entry: { ...(toolEntries[at] as EntryOf<T>), tool: tools[at]! } as EntryOf<T> & { tool: T } });
    owners.delete(key);
  }
  // a name that is an alias another tool served at the previous commit stays that tool's alias: its claimants are refused
  const { holders: aliasOwners, taken } = aliasHolders(tools, owners, established);
  for (const [key, holder] of taken) {
    const at = ownerAt.get(key)!;
    losers.push({ key, entry: { ...(toolEntries[at] as EntryOf<T>), tool: tools[at]! } as EntryOf<T> & { tool: T } });
  }
  // each name other tools claim and were refused: a case twin (DUPLICATE_NAME), an alias (ALIAS_CONFLICT); who answers
  const contested = new Map<string, ContestedName>();
  const contest = (key: string, holder: string | undefined, claimant: { twin: string } | { alias: string }): void => {
    let known = contested.get(key);
    if (!known) contested.set(key, (known = { name: key, ...(holder !== undefined ? { holder } : {}), refused: [] }));
    if ('alias' in claimant) known.refused.push(claimant.alias);
    else (known.twins ??= []).push(claimant.twin);
  };
  for (const { key, entry } of losers) {
    const at = ownerAt.get(key)!;
    const holder = taken.get(key);
    // a twin refused makes the name contested: a list naming it may mean the refused one (review Z, Z1)
    contest(key, closed.has(key) ? undefined : holder !== undefined ? tools.find((tool) => tool.source.path === holder)?.name : tools[at]!.name, { twin: entry.tool.name });
    if (closed.has(key)) {
      const note = established.note?.('name', key) ?? established.note?.('alias', key);
      const rivals = claimantsOf(key, tools, losers).filter((path) => path !== entry.tool.source.path);
      errors.push(duplicate(entry.tool.source.path, entry.name_position, `tool name '${entry.tool.name}' is claimed by ${rivals.join(', ')} too, and neither is served: ${note && 'undecided' in note ? note.undecided : 'git history cannot tell which is older'}`));
      continue;
    }
    if (holder !== undefined) {
      const note = established.note?.('alias', key);
      const since = note && 'decided' in note ? `${holder} declared first in git history (${note.decided})` : `${holder} served at the previous commit`;
      errors.push(duplicate(entry.tool.source.path, entry.name_position, `tool name '${entry.tool.name}' is an alias ${since}, and it keeps it`));
      continue;
    }
    const { why } = preferredClaim({ folder: toolEntries[at]!.folder, tool: tools[at]! }, { folder: entry.folder, tool: entry.tool }, heldName, nameNote);
    errors.push(duplicate(entry.tool.source.path, entry.name_position, `tool name '${entry.tool.name}' is already taken by ${tools[at]!.source.path}, kept because ${why}`));
  }
  warnings.push(...caseTwinWarnings(entries, entryFile));
  const kept: T[] = [];
  for (let position = 0; position < tools.length; position++) {
    if (position % SLICE === SLICE - 1) yield;
    if ((taken.size > 0 || closed.size > 0) && owners.get(tools[position]!.name.toLowerCase()) !== tools[position]) continue;
    kept.push(
      keepUniqueAliases(tools[position]!, owners, aliasOwners, warnings, closed, (alias, holder, warned) => {
        // an alias no tool keeps (git history cannot date its claims) has no holder, and is not placed at its line
        if (holder !== undefined && warned) toPlace.push({ at: warnings.length - 1, entry: toolEntries[position]!, alias });
        contest(alias.toLowerCase(), holder, { alias: tools[position]!.name });
      }),
    );
    const grouped = groupNamesTool(tools[position]!, owners, aliasOwners);
    if (grouped) toPlace.push({ at: warnings.push(grouped) - 1, entry: toolEntries[position]!, alias: tools[position]!.group!, field: 'group' });
  }
  yield;
  kept.sort(compareToolNames);
  yield;
  const { toolsets, skills } = checkMembers(kept, others, errors, duplicate, (key) => established.toolset(key), (key) => established.note?.('toolset', key), brokenTools(entries));
  yield;
  // a policy may name a tool whose definition is broken today: that tool is known, only not served
  // (only when there is a policy to check: an array of a one-folder array a tool was 100,000 arrays at 100,000 tools)
  const folders: string[] = [];
  if (others.some((entry) => entry.kind === 'policy')) for (const entry of entries) if (entryKind(entry) === 'tool') folders.push(entry.folder);
  const policies = checkPolicies(kept, folders, others, errors, duplicate, contested, warnings);
  // a --repo one folder off (the repository's parent, a tools/ folder itself) would otherwise serve nothing, silently
  if (!entries.some((entry) => entryKind(entry) === 'tool')) warnings.push(noToolsWarning(source));
  const names = contested.size > 0 ? { contested: [...contested.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) } : {};
  return { index: { source, commit, tools: kept, toolsets, skills, policies, errors, warnings, scanned_at: scannedAt, ...names }, toPlace };
}

function noToolsWarning(source: string): Diagnostic {
  return {
    file: ENTRY_LAYOUT.tool.folder, line: 1, column: 1, severity: 'warning', code: 'NO_TOOLS',
    message: `no tool in ${source}: tools are read from ${entryPath('tool', '<name>')} at the repository's root, and there is none; give --repo the folder or git repository that holds ${ENTRY_LAYOUT.tool.folder}/`,
  };
}

function duplicate(file: string, position: Position | undefined, taken: string): Diagnostic {
  const { line, column } = position ?? { line: 1, column: 1 };
  // a twin git history cannot date names which to act on itself (name-history's merged claims)
  const advice = taken.includes('rename or remove one of them') ? '' : ': rename this one';
  return { file, line, column, severity: 'error', code: 'DUPLICATE_NAME', message: `${taken}${advice}` };
}

// an alias that is another tool's name, or another tool's alias, would make lookups ambiguous: the name's tool keeps it,
// else the one `aliasHolders` chose. A tool is warned of its first MOST_ALIAS_CONFLICTS, the last saying how many more
// (as unknown fields are): 4,000 conflicting aliases were 4,000 warnings in the index, the cache and /v1/scan (Z20-1).
function keepUniqueAliases<T extends ToolStub>(
  tool: T,
  owners: Map<string, T>,
  aliasOwners: Map<string, T>,
  warnings: Diagnostic[],
  closed: ReadonlySet<string>,
  reported: (alias: string, holder: string | undefined, warned: boolean) => void,
): T {
  const kept: string[] = [];
  let conflicts = 0;
  let last = -1;
  const warn = (message: string): boolean => {
    if (++conflicts > MOST_ALIAS_CONFLICTS) return false;
    last = warnings.push({ file: tool.source.path, line: 1, column: 1, severity: 'warning', code: 'ALIAS_CONFLICT', message }) - 1;
    return true;
  };
  for (const alias of tool.aliases) {
    const key = foldedKey(alias);
    if (closed.has(key)) {
      const warned = warn(`alias '${alias}' is also a tool's name, and git history cannot tell which is older: it is ignored for '${tool.name}', and no tool is served by that name`);
      // still contested: a deny rule or sessions.deny entry naming it keeps covering this tool
      if (tool.name.toLowerCase() !== key) reported(alias, undefined, warned);
      continue;
    }
    const nameOwner = owners.get(key);
    const aliasOwner = aliasOwners.get(key);
    const conflict = nameOwner && nameOwner !== tool ? nameOwner.name : aliasOwner && aliasOwner !== tool ? aliasOwner.name : undefined;
    if (conflict) {
      reported(alias, conflict, warn(`alias '${alias}' also names tool '${conflict}'; it is ignored for '${tool.name}'`));
      continue;
    }
    kept.push(alias);
  }
  if (conflicts > MOST_ALIAS_CONFLICTS) warnings[last] = { ...warnings[last]!, message: `${warnings[last]!.message}; and ${conflicts - MOST_ALIAS_CONFLICTS} more of its aliases are ignored as well` };
  // a copy with its prototype: a summary's source may be made by it (entry-summary's FolderToolSummary)
  return kept.length === tool.aliases.length ? tool : (Object.assign(Object.create(Object.getPrototypeOf(tool) as object | null) as T, tool, { aliases: kept }) as T);
}

/** How many ALIAS_CONFLICT warnings a tool gets, the last saying how many more of its aliases are ignored. */
export const MOST_ALIAS_CONFLICTS = 20;

// each alias no tool is named, and the tool that keeps it: the one that held it at the previous commit, else the first by
// path. An alias a tool served at the previous commit and still declares stays its alias when a tool is now named so
// (twin14's rule, review Z, Z1): otherwise a push adding `tools/read-file/` took reviewed `file-read`'s alias, and every
// call, policy and grant naming it moved to the newcomer. Such names leave `owners`; `taken` says which alias holder kept each.
function aliasHolders<T extends ToolStub>(tools: readonly T[], owners: Map<string, T>, established: Established): { holders: Map<string, T>; taken: Map<string, string> } {
  const taken = new Map<string, string>();
  for (;;) {
    const { holders, named } = holdersOf(tools, owners, established, taken.size > 0);
    // most scans have no alias that is a name: the previous index is not read
    const newly = named.filter(({ key, tool }) => !taken.has(key) && established.alias(key) === tool.source.path);
    if (newly.length === 0) return { holders, taken };
    for (const { key, tool } of newly) {
      taken.set(key, tool.source.path);
      owners.delete(key);
    }
  }
}

function holdersOf<T extends ToolStub>(tools: readonly T[], owners: Map<string, T>, established: Established, someTaken: boolean): { holders: Map<string, T>; named: Array<{ key: string; tool: T }> } {
  const holders = new Map<string, T>();
  const named: Array<{ key: string; tool: T }> = [];
  for (const tool of tools) {
    // a tool whose name was taken back for an alias holds nothing
    if (someTaken && owners.get(tool.name.toLowerCase()) !== tool) continue;
    for (const alias of tool.aliases) {
      const key = foldedKey(alias);
      const owner = owners.get(key);
      if (owner !== undefined) {
        if (owner !== tool) named.push({ key, tool });
        continue;
      }
      const holder = holders.get(key);
      holders.set(key, holder === undefined || holder === tool ? tool : preferredAliasHolder(key, holder, tool, established));
    }
  }
  return { holders, named };
}

// the definitions claiming a name no claim keeps: the tools named so (each refused) and those declaring it as an alias
function claimantsOf<T extends ToolStub>(key: string, tools: readonly T[], losers: ReadonlyArray<{ key: string; entry: { tool: T } }>): string[] {
  const named = losers.filter((loser) => loser.key === key).map((loser) => loser.entry.tool.source.path);
  const declaring = tools.filter((tool) => tool.name.toLowerCase() !== key && tool.aliases.some((alias) => foldedKey(alias) === key)).map((tool) => `${tool.source.path} (as an alias)`);
  return [...new Set([...named, ...declaring])];
}

// where an entry was read from, for a warning about its folder: its definition's path, else the file its problem names
function entryFile(entry: EntryOf<ToolStub>): string {
  const definition = entry.kind === 'toolset' ? entry.toolset : entry.kind === 'skill' ? entry.skill : entry.kind === 'policy' ? entry.policy : entry.tool;
  return definition?.source.path ?? entry.diagnostics[0]?.file ?? entryPath(entryKind(entry), entry.folder);
}
