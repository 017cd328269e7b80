import { distance } from 'fastest-levenshtein';
import { BROKEN_MEMBER, type Diagnostic, type EntryKind, type SkillDefinition, type ToolsetDefinition } from '../core/index.js';
import type { OtherEntry, ToolStub } from './build-index.js';
import { closedNote, preferredClaim, type HeldBy, type NoteOf } from './name-claims.js';
import type { Position } from './yaml-locator.js';

type Duplicate = (file: string, position: Position | undefined, taken: string) => Diagnostic;

/**
 * Keeps the toolsets with the members that are a tool (name or alias) or a group of the index, and the skills whose
 * toolset exists; each unknown member is reported at its line, with the names nearest to it (or, for a tool whose own
 * file is broken, that file's first error's place: `brokenTool`), and a toolset none of whose members is served is left out.
 */
export function checkMembers(tools: readonly ToolStub[], entries: readonly OtherEntry[], errors: Diagnostic[], duplicate: Duplicate, heldBy: HeldBy, noteOf?: NoteOf, brokenTool: (member: string) => Diagnostic | undefined = () => undefined): { toolsets: ToolsetDefinition[]; skills: SkillDefinition[] } {
  // nothing to check: the table of every tool's names is not built (tens of milliseconds at 10,000 tools)
  if (!entries.some((entry) => entry.kind === 'toolset' || entry.kind === 'skill')) return { toolsets: [], skills: [] };
  const known = new Map<string, string>();
  for (const tool of tools) {
    known.set(tool.name.toLowerCase(), tool.name);
    for (const alias of tool.aliases) known.set(alias.toLowerCase(), alias);
  }
  const groups = new Set(tools.flatMap((tool) => (tool.group ? [tool.group] : [])));
  const toolsets = new Map<string, ToolsetDefinition>();
  const claimants = toolsetClaims(entries, heldBy);
  for (const entry of entries) {
    if (entry.kind !== 'toolset' || !entry.toolset) continue;
    const toolset = entry.toolset;
    const claim = claimants.get(toolset.name.toLowerCase())!;
    const note = noteOf?.(toolset.name.toLowerCase());
    if (closedNote(note)) {
      // git history could not date a claim that came in through a merge: neither twin is served (review Z2, Z2-2)
      const rivals = entries.flatMap((other) => (other.kind === 'toolset' && other.toolset && other.toolset !== toolset && other.toolset.name.toLowerCase() === toolset.name.toLowerCase() ? [other.toolset.source.path] : []));
      errors.push(duplicate(toolset.source.path, entry.name_position, `toolset name '${toolset.name}' is claimed by ${rivals.join(', ')} too, and neither is served: ${note.undecided}`));
      continue;
    }
    if (claim.kept.tool !== toolset) {
      const { why } = preferredClaim(claim.kept, { folder: entry.folder, tool: toolset }, heldBy, noteOf);
      errors.push(duplicate(toolset.source.path, entry.name_position, `toolset name '${toolset.name}' is already taken by ${claim.kept.tool.source.path}, kept because ${why}`));
      continue;
    }
    const unknown = toolset.tools.flatMap((member, index) => (known.has(member.toLowerCase()) || groups.has(member) ? [] : [{ member, index }]));
    for (const { member, index } of unknown) {
      const { line, column } = entry.member_positions?.[index] ?? { line: 1, column: 1 };
      const served = unknown.length < toolset.tools.length ? ` (the toolset is served with its other members)` : ' (the toolset is left out: none of its members is served)';
      // a tool whose own file is broken is a tool of this registry: saying it is none would send the admin to delete
      // the member (review userZ4, F4); its file:line:col is there for them, the registry's errors being theirs to read
      const broken = brokenTool(member);
      if (broken) {
        errors.push({ file: toolset.source.path, line, column, severity: 'error', code: 'UNKNOWN_MEMBER', message: `toolset '${toolset.name}' names '${member}', ${BROKEN_MEMBER} (${broken.file}:${broken.line}:${broken.column})${served}` });
        continue;
      }
      const near = nearest(member, [...tools.map((tool) => tool.name), ...groups]);
      errors.push({
        file: toolset.source.path, line, column, severity: 'error', code: 'UNKNOWN_MEMBER',
        message: `toolset '${toolset.name}' names '${member}', which is neither a tool nor a group of this registry${near.length ? `; did you mean ${near.map((name) => `'${name}'`).join(', ')}?` : ''}${served}`,
      });
    }
    // a member removed by a commit must not take the rest from every session that enabled the toolset (review userX,
    // X2): it is kept with the members that exist, the missing one an error above (validate fails, /healthz degrades);
    // with none left it is dropped, since an empty list would mean the whole registry
    const kept = unknown.length === 0 ? toolset : { ...toolset, tools: toolset.tools.filter((_, index) => !unknown.some((gone) => gone.index === index)) };
    if (kept.tools.length > 0 || toolset.tools.length === 0) toolsets.set(toolset.name.toLowerCase(), kept);
  }
  const skills = new Map<string, SkillDefinition>();
  for (const entry of entries) {
    if (entry.kind !== 'skill' || !entry.skill) continue;
    const skill = entry.skill;
    const first = skills.get(skill.name);
    if (first) {
      errors.push(duplicate(skill.source.path, entry.name_position, `skill name '${skill.name}' is already taken by ${first.source.path}`));
      continue;
    }
    if (skill.toolset !== undefined && !toolsets.has(skill.toolset.toLowerCase())) {
      const { line, column } = entry.toolset_position ?? { line: 1, column: 1 };
      errors.push({ file: skill.source.path, line, column, severity: 'error', code: 'UNKNOWN_MEMBER', message: unknownSkillToolset(skill.name, skill.toolset, [...toolsets.values()].map((toolset) => toolset.name)) });
      continue;
    }
    // by default a skill leads to the toolset of its own name, when there is one
    const linked = toolsets.get((skill.toolset ?? skill.name).toLowerCase())?.name;
    skills.set(skill.name, linked !== skill.toolset ? { ...skill, ...(linked ? { toolset: linked } : {}) } : skill);
  }
  const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return { toolsets: [...toolsets.values()].sort(byName), skills: [...skills.values()].sort(byName) };
}

// of toolsets claiming one name (compared case-insensitively), the one kept: twin14's rule for tools (review Z, Z2),
// so a pushed `toolsets/Ops/` does not take `ops` from the reviewed toolset that served it by sorting first
function toolsetClaims(entries: readonly OtherEntry[], heldBy: HeldBy): Map<string, { kept: { folder: string; tool: ToolsetDefinition } }> {
  const claims = new Map<string, { kept: { folder: string; tool: ToolsetDefinition } }>();
  for (const entry of entries) {
    if (entry.kind !== 'toolset' || !entry.toolset) continue;
    const key = entry.toolset.name.toLowerCase();
    const claim = { folder: entry.folder, tool: entry.toolset };
    const held = claims.get(key);
    claims.set(key, { kept: held === undefined ? claim : preferredClaim(held.kept, claim, heldBy).kept });
  }
  return claims;
}

/**
 * The first error of the `TOOL.hdlp` in a member's folder whose tool is not served (its own definition is broken),
 * worked out once when a toolset first names a member no tool answers to.
 */
export function brokenTools(entries: ReadonlyArray<{ kind?: EntryKind; folder: string; diagnostics: readonly Diagnostic[]; tool?: unknown }>): (member: string) => Diagnostic | undefined {
  let byFolder: Map<string, Diagnostic> | undefined;
  return (member) => {
    if (byFolder === undefined) {
      byFolder = new Map();
      for (const entry of entries) {
        if ((entry.kind ?? 'tool') !== 'tool' || ('tool' in entry && entry.tool)) continue;
        const first = entry.diagnostics.find((diagnostic) => diagnostic.severity === 'error');
        if (first && !byFolder.has(entry.folder.toLowerCase())) byFolder.set(entry.folder.toLowerCase(), first);
      }
    }
    return byFolder.get(member.toLowerCase());
  };
}

/** What a skill whose `toolset:` names none of `toolsets` is told, with the names it likely meant. */
export function unknownSkillToolset(skill: string, toolset: string, toolsets: readonly string[]): string {
  const near = nearest(toolset, toolsets);
  return `skill '${skill}' leads to toolset '${toolset}', which this registry does not have (or which is broken)${near.length ? `; did you mean ${near.map((name) => `'${name}'`).join(', ')}?` : ''}`;
}

/** Up to three names spelled like `name` (a typo) or sharing its start, closest first. */
export function nearest(name: string, names: readonly string[]): string[] {
  const wanted = name.toLowerCase();
  return names
    .map((candidate) => ({ candidate, edits: distance(wanted, candidate.toLowerCase()) }))
    .filter(({ candidate, edits }) => edits <= Math.max(2, Math.floor(Math.max(wanted.length, candidate.length) / 3)) || candidate.toLowerCase().startsWith(wanted) || wanted.startsWith(candidate.toLowerCase()))
    .sort((a, b) => a.edits - b.edits || (a.candidate < b.candidate ? -1 : 1))
    .slice(0, 3)
    .map(({ candidate }) => candidate);
}
