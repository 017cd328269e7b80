import { ENTRY_LAYOUT, entryPath, foldedKey } from '../core/index.js';
import { aliasDeclared } from './alias-positions.js';
import type { EntryOf, ToolStub } from './build-index.js';
import { MAX_DEFINITION_BYTES } from './yaml-mapping.js';
import type { Established, HistoryNote } from './name-claims.js';
import type { ClaimHistory, HistoryAnswer, HistoryClaim, WalkEnd } from './sources/claim-history.js';

/** The lower-cased names an `Established` was asked about and had no answer for: the clashes the previous index does not settle. */
export interface Unsettled {
  tools: Set<string>;
  toolsets: Set<string>;
}

/** `established`, noting each key it has no answer for in `unsettled` (it is asked only at a clash). */
export function noting(established: Established, unsettled: Unsettled): Established {
  const noted = (set: Set<string>, key: string, answer: string | undefined): string | undefined => {
    if (answer === undefined) set.add(key);
    return answer;
  };
  return {
    name: (key) => noted(unsettled.tools, key, established.name(key)),
    alias: (key) => noted(unsettled.tools, key, established.alias(key)),
    toolset: (key) => noted(unsettled.toolsets, key, established.toolset(key)),
    ...(established.note ? { note: established.note } : {}),
  };
}

/** One definition's claim on a key, as history is asked about it. */
interface Claimant {
  path: string;
  role: 'name' | 'alias' | 'toolset';
  claim: HistoryClaim;
}

/** What git history says of one key: who holds it as a name, as an alias, as a toolset, and why (or why it cannot say). */
interface Verdict {
  name?: string;
  alias?: string;
  toolset?: string;
  notes: { name?: HistoryNote; alias?: HistoryNote; toolset?: HistoryNote };
}

/**
 * `base` with the clashes it does not settle (`unsettled`, a key the previous index held neither as a name nor an
 * alias) settled by git history where it can: of the definitions claiming a key, the one whose claim (its folder; for
 * an alias, its file declaring it) is present furthest back in first-parent history keeps it. A restart with an empty
 * scan cache then keeps what a server that watched every push kept (review Z, Z3). Where history cannot tell them
 * apart, the same rule as before decides, and the note says why history did not. Undefined when `base` settles
 * every clash after all (a key it held as a name, asked about as an alias).
 */
export async function settledByHistory<T extends ToolStub>(base: Established, unsettled: Unsettled, entries: readonly EntryOf<T>[], history: ClaimHistory): Promise<Established | undefined> {
  const verdicts = { tools: new Map<string, Verdict>(), toolsets: new Map<string, Verdict>() };
  const heldBefore = (key: string): boolean => base.name(key) !== undefined || base.alias(key) !== undefined;
  const tools = [...unsettled.tools].filter((key) => !heldBefore(key));
  const toolsets = [...unsettled.toolsets].filter((key) => base.toolset(key) === undefined);
  const claimants = claimantsOf(entries, new Set(tools), new Set(toolsets));
  const groups = [...[...claimants.tools].map(([key, list]) => ({ verdicts: verdicts.tools, key, list })), ...[...claimants.toolsets].map(([key, list]) => ({ verdicts: verdicts.toolsets, key, list }))];
  if (groups.length === 0) return undefined;
  // one walk for every name: it ends once none has two claims left
  const claims = groups.flatMap(({ list }, group) => list.map(({ claim }) => ({ ...claim, group })));
  let answer: HistoryAnswer | { error: string };
  try {
    answer = await history(claims);
  } catch (error) {
    answer = { error: error instanceof Error ? error.message : String(error) };
  }
  let at = 0;
  for (const { verdicts: into, key, list } of groups) {
    // a file of the name's claims that could not be read (too large, hostile YAML) leaves its age unknown: fail closed (review Z4, F1)
    const unreadable = 'error' in answer ? undefined : answer.unreadable?.slice(at, at + list.length).find((why) => why !== undefined);
    const slice = 'error' in answer ? answer : unreadable !== undefined ? { error: unreadable } : sliced(answer, at, list.length);
    into.set(key, verdictOf(list, slice));
    at += list.length;
  }
  return {
    name: (key) => base.name(key) ?? verdicts.tools.get(key)?.name,
    alias: (key) => base.alias(key) ?? verdicts.tools.get(key)?.alias,
    toolset: (key) => base.toolset(key) ?? verdicts.toolsets.get(key)?.toolset,
    note: (kind, key) => (kind === 'toolset' ? verdicts.toolsets.get(key)?.notes.toolset : verdicts.tools.get(key)?.notes[kind]),
  };
}

// the part of `answer` about the claims `at` to `at + length`, numbered from 0
function sliced(answer: HistoryAnswer, at: number, length: number): HistoryAnswer {
  const alone = (answer.alone ?? []).flatMap((pair) => (pair.claim >= at && pair.claim < at + length && pair.without >= at && pair.without < at + length ? [{ ...pair, claim: pair.claim - at, without: pair.without - at }] : []));
  return {
    appeared: answer.appeared.slice(at, at + length),
    ...(answer.end ? { end: answer.end } : {}),
    ...(answer.furthest ? { furthest: answer.furthest.slice(at, at + length) } : {}),
    ...(alone.length > 0 ? { alone } : {}),
  };
}

// the definitions claiming each key: tools named so (their folder), tools declaring it as an alias (their file, saying so), toolsets named so
function claimantsOf<T extends ToolStub>(entries: readonly EntryOf<T>[], toolKeys: Set<string>, toolsetKeys: Set<string>): { tools: Map<string, Claimant[]>; toolsets: Map<string, Claimant[]> } {
  const tools = new Map<string, Claimant[]>();
  const toolsets = new Map<string, Claimant[]>();
  const add = (map: Map<string, Claimant[]>, key: string, claimant: Claimant): void => {
    const list = map.get(key);
    if (list) list.push(claimant);
    else map.set(key, [claimant]);
  };
  if (toolKeys.size === 0 && toolsetKeys.size === 0) return { tools, toolsets };
  const { folder: toolsFolder, file: toolFile } = ENTRY_LAYOUT.tool;
  for (const entry of entries) {
    if (entry.kind === 'toolset') {
      const key = entry.toolset?.name.toLowerCase();
      if (key !== undefined && toolsetKeys.has(key)) add(toolsets, key, { path: entryPath('toolset', entry.folder), role: 'toolset', claim: { path: [ENTRY_LAYOUT.toolset.folder, entry.folder] } });
      continue;
    }
    if (entry.kind === 'skill' || entry.kind === 'policy' || !entry.tool) continue;
    const tool = entry.tool;
    const key = tool.name.toLowerCase();
    if (toolKeys.has(key)) add(tools, key, { path: tool.source.path, role: 'name', claim: { path: [toolsFolder, entry.folder] } });
    for (const alias of new Set(tool.aliases.map(foldedKey))) {
      if (!toolKeys.has(alias) || alias === key) continue;
      const holds = (content: Uint8Array): ReturnType<typeof aliasDeclared> => aliasDeclared(content, alias);
      add(tools, alias, { path: tool.source.path, role: 'alias', claim: { path: [toolsFolder, entry.folder, toolFile], holds, maxBytes: MAX_DEFINITION_BYTES } });
    }
  }
  return { tools, toolsets };
}

function verdictOf(claimants: readonly Claimant[], answer: HistoryAnswer | { error: string }): Verdict {
  if ('error' in answer) {
    // nothing dates the claims: the newcomer may be any of them, so none keeps the key (fail closed)
    const note: HistoryNote = { undecided: `git history could not be read (${answer.error}), so no claim keeps the name: ${RENAME}`, closed: true };
    return { notes: claimants.some((claimant) => claimant.role === 'alias') ? { name: note, alias: note, toolset: note } : { name: note, toolset: note } };
  }
  // a walk that ended at its bound of files' bytes or of look-ups (hostile pushes reach them) has not seen how far back
  // each claim is, nor the lines its merges brought in: nothing it says dates a claim for sure (review Z4, F3b and F5)
  if (answer.end?.reason === 'work' || answer.end?.reason === 'files') {
    const note: HistoryNote = { undecided: `${endReason(answer.end)}, so no claim keeps the name: ${RENAME}`, closed: true };
    return { notes: claimants.some((claimant) => claimant.role === 'alias') ? { name: note, alias: note, toolset: note } : { name: note, toolset: note } };
  }
  // how far back each claim is present: still present where the walk ended is furthest
  const age = (at: number): number => answer.appeared[at]?.depth ?? Number.POSITIVE_INFINITY;
  const of = (role: Claimant['role']): number[] => claimants.flatMap((claimant, at) => (claimant.role === role ? [at] : []));
  // the one of `ats` present furthest back, where one is
  const oldest = (ats: readonly number[]): number | undefined => {
    if (ats.length === 0) return undefined;
    const best = Math.max(...ats.map(age));
    const found = ats.filter((at) => age(at) === best);
    return found.length === 1 ? found[0] : undefined;
  };
  const verdict: Verdict = { notes: {} };
  // a claim that came in through a merge has no age the walk can tell: no claim of its key is kept by history nor by the
  // rules after it. The oldest one's own merge does not matter: the others were added on the walked line after it was there
  const merged = (ats: readonly number[]): HistoryNote | undefined => {
    const first = oldest(ats);
    const at = ats.find((one) => one !== first && answer.appeared[one]?.merged);
    if (at === undefined) return undefined;
    // the others, as they stand on the walked line: which one to act on is the author's call, with both in view
    const since = (one: number): string => (answer.appeared[one] ? `has been here since commit ${short(answer.appeared[one].commit)}` : 'was there before it');
    const others = ats.flatMap((one) => (one === at || answer.appeared[one]?.merged ? [] : [`${claimants[one]!.path} ${since(one)}`]));
    return { undecided: mergedReason(claimants[at]!, answer.appeared[at]!.merged!, others), closed: true };
  };
  for (const role of ['name', 'toolset'] as const) {
    const group = of(role);
    if (group.length < 2) continue;
    const closed = merged(group);
    if (closed) {
      verdict.notes[role] = closed;
      continue;
    }
    const held = oldest(group);
    const alone = aloneNote(claimants, answer, group, held);
    if (alone) {
      verdict.notes[role] = alone;
      continue;
    }
    verdict.notes[role] = held === undefined ? tieNote(group, answer) : { decided: decidedReason(claimants, answer, held, group) };
    if (held !== undefined) verdict[role] = claimants[held]!.path;
  }
  // an alias keeps a name only from tools named so after it was declared
  const contest = of('alias').length > 0 && of('name').length > 0 ? [...claimants.keys()] : [];
  const closed = contest.length > 0 ? (merged(contest) ?? unseenNote(contest, answer) ?? aloneNote(claimants, answer, contest, oldest(contest))) : undefined;
  if (closed) {
    verdict.notes.alias = closed;
    return verdict;
  }
  const alias = oldest(of('alias'));
  if (alias !== undefined && of('name').every((at) => age(at) < age(alias))) {
    verdict.alias = claimants[alias]!.path;
    verdict.notes.alias = { decided: decidedReason(claimants, answer, alias, [...claimants.keys()]) };
  }
  return verdict;
}

const short = (commit: string): string => commit.slice(0, 12);

/**
 * A closed note where the claim first-parent history names (`winner`; none at a tie) may not be the one a server that
 * watched the branch kept (review Z4, F3b): another claim of `group` was present on the first-parent line at or before
 * the commit where the winner appeared (it was there before, was deleted and came back), or a commit on a line a merge
 * brought in held another claim without the winner (at a tie: any claim without another). A server whose branch was at
 * that commit kept the one there, and a push that deletes the reviewed tool, adds a twin and restores the reviewed tool
 * byte for byte shows, as a diff, only the twin added.
 */
function aloneNote(claimants: readonly Claimant[], answer: HistoryAnswer, group: readonly number[], winner: number | undefined): HistoryNote | undefined {
  // the winner was still there where the walk stopped short of the first commit, and another claim appeared inside it:
  // "the winner old, the other new" cannot be told from "the other deleted and restored past the walk's reach" (a push
  // of 301 empty commits between the two: review Z5, Z5-1), so neither keeps the name — at a start without the previous
  // index only, since a running gateway keeps the names it held
  const end = answer.end;
  const inside = winner === undefined ? undefined : group.find((at) => at !== winner && answer.appeared[at] !== undefined);
  if (end !== undefined && end.reason !== 'root' && winner !== undefined && answer.appeared[winner] === undefined && inside !== undefined) {
    return { undecided: `git history cannot tell which claim is older: ${claimants[winner]!.path} was there where the walk stopped (${stopWords(end)}), and ${claimants[inside]!.path} appeared in commit ${short(answer.appeared[inside]!.commit)}, which may be its return after a removal older than the walk reaches: ${RENAME}`, closed: true };
  }
  // where the winner's presence starts (the walk's end, where it was there still); at a tie, where the oldest appeared
  const since = (at: number): number => answer.appeared[at]?.depth ?? answer.furthest?.[at]?.depth ?? Number.POSITIVE_INFINITY;
  const start = winner !== undefined ? since(winner) : Math.max(...group.map(since));
  const furthest = (at: number): number => answer.furthest?.[at]?.depth ?? -1;
  const before = group.find((at) => at !== winner && (winner !== undefined ? furthest(at) >= start : furthest(at) > start));
  if (before !== undefined) {
    const there = answer.furthest![before]!;
    const other = winner ?? group.find((at) => at !== before)!;
    return { undecided: `git history cannot tell which claim is older: ${claimants[before]!.path} was there at commit ${short(there.commit)}, before ${claimants[other]!.path} was there for good, and came back later: ${RENAME}`, closed: true };
  }
  const pair = (answer.alone ?? []).find((one) => group.includes(one.claim) && group.includes(one.without) && one.claim !== winner && (winner === undefined || one.without === winner));
  if (pair === undefined) return undefined;
  return { undecided: `git history cannot tell which claim is older: commit ${short(pair.commit)}, on a line a merge brought in, held ${claimants[pair.claim]!.path} without ${claimants[pair.without]!.path}: ${RENAME}`, closed: true };
}

// names the claim that came in through the merge, and the rest, on every twin: each was told "rename this one", the
// reviewed tool that had the name before the merge too (review userZ2, U11)
function mergedReason(claimant: Claimant, commit: string, others: readonly string[]): string {
  const what = claimant.role === 'alias' ? `${claimant.path}'s alias` : claimant.path;
  const since = others.length > 0 ? `; ${others.join('; ')}` : '';
  return `git history cannot tell which claim is older: ${what} came in through the merge commit ${short(commit)} from a line first-parent history does not follow; rename or remove one of them (${what} came in through the merge${since})`;
}

function decidedReason(claimants: readonly Claimant[], answer: HistoryAnswer, winner: number, group: readonly number[]): string {
  const younger = group.flatMap((at) => (at === winner ? [] : [`${claimants[at]!.path} ${claimants[at]!.role === 'alias' ? 'declared it' : 'appeared'} in commit ${short(answer.appeared[at]!.commit)}`]));
  // the claim kept is named: "it was there before" read as if the younger claim had been (userZ5, F1)
  const kept = claimants[winner]!;
  return `${younger.join(', ')}; ${kept.role === 'alias' ? `${kept.path} declared it` : `${kept.path} was there`} before`;
}

const RENAME = 'rename or remove one of them';

// why history does not name one of `group`: the oldest appeared in one commit, or were all there where the walk ended.
// Both in one commit (or in the first commit) is a tie history saw: the rules after it decide. Both there where the walk
// stopped short (a shallow clone's edge, the bound) is an age history could not see: the younger may be a newcomer the
// rules after it would pick (`tools/Deploy/` sorts before `tools/deploy/`), so no claim keeps the key (fail closed)
function tieNote(group: readonly number[], answer: HistoryAnswer): HistoryNote {
  const unseen = unseenNote(group, answer);
  if (unseen) return unseen;
  const appeared = group.map((at) => answer.appeared[at]);
  if (appeared.filter((one) => one === undefined).length >= 2) return { undecided: answer.end ? endReason(answer.end) : 'git history does not tell them apart' };
  const first = Math.max(...appeared.map((one) => one?.depth ?? -1));
  const commit = appeared.find((one) => one?.depth === first)?.commit;
  return { undecided: `git history does not tell them apart: they appeared in the same commit ${short(commit ?? '')}` };
}

// a closed note where two or more of `group` were still there where the walk stopped short of their start
function unseenNote(group: readonly number[], answer: HistoryAnswer): HistoryNote | undefined {
  const end = answer.end;
  if (end === undefined || end.reason === 'root' || group.filter((at) => answer.appeared[at] === undefined).length < 2) return undefined;
  return { undecided: `${endReason(end)}, so no claim keeps the name: ${RENAME}`, closed: true };
}

// where a walk that did not reach the first commit stopped, in words
function stopWords(end: WalkEnd): string {
  if (end.reason === 'bound') return `after the ${end.commits} commits it looks at`;
  if (end.reason === 'bytes') return `after the ${end.bytes / 1048576} MiB of trees it reads`;
  if (end.reason === 'shallow') return `at commit ${short(end.commit)}, the edge of a shallow clone${end.fetch ? ` more of which could not be fetched: ${end.fetch}` : ''}`;
  return `at commit ${short(end.commit)}`;
}

function endReason(end: WalkEnd): string {
  if (end.reason === 'root') return `git history does not tell them apart: both are in the first commit ${short(end.commit)}`;
  if (end.reason === 'shallow') return `git history does not tell which is older: it ends at commit ${short(end.commit)} (a shallow clone${end.fetch ? `, and more of it could not be fetched: ${end.fetch}` : ''}) with both present`;
  if (end.reason === 'bytes') return `git history does not tell which is older: both are older than the ${end.bytes / 1048576} MiB of trees looked at`;
  if (end.reason === 'files') return `git history does not tell which is older: the walk reached its bound of ${end.bytes / 1048576} MiB of old definitions read`;
  if (end.reason === 'work') return `git history does not tell which is older: the walk reached its bound of ${end.looks} look-ups of claims`;
  return `git history does not tell which is older: both are older than the ${end.commits} commits looked at`;
}
