import { ENTRY_LAYOUT, type Diagnostic } from '../../core/index.js';

/** One item of the `policies/` folder: its name, and whether it is a folder. */
export interface PoliciesItem {
  name: string;
  folder: boolean;
}

/** One entry at a registry's root, as the layout sees it: a folder, a file, a symbolic link or a git submodule. */
export interface RootItem {
  name: string;
  type: 'folder' | 'file' | 'symlink' | 'submodule';
}

// `policies` itself, or a name its author may have meant for it: `Policies`, `POLICIES`, `policy`
const MEANT_AS_POLICIES = /^polic(y|ies)$/i;

// a case or plural slip of tools/, toolsets/ or skills/ (`Tools`, `tool`, `Skill`): its definitions are never read (userZ7, F7)
const MEANT_AS_ENTRIES = /^(tools?|toolsets?|skills?)$/i;
const ENTRY_FOLDERS = new Set([ENTRY_LAYOUT.tool.folder, ENTRY_LAYOUT.toolset.folder, ENTRY_LAYOUT.skill.folder]);

/** Whether a name at a registry's root may be meant as its policies/ folder, or as tools/, toolsets/ or skills/ (only such items need be looked at). */
export function mayBePolicies(name: string): boolean {
  return MEANT_AS_POLICIES.test(name) || isEntryFolderSlip(name);
}

/** Whether a name at a registry's root is a case or plural slip of tools/, toolsets/ or skills/ (not one of them). */
export function isEntryFolderSlip(name: string): boolean {
  return MEANT_AS_ENTRIES.test(name) && !ENTRY_FOLDERS.has(name);
}

// what a tool, toolset, skill or policy definition is named, in any case: `TOOL.hdlp`, `tool.hdlp`, `SKILL.md`
const DEFINITION_NAME = /\.hdlp$|^skill\.md$/i;

// how deep under a slip of tools/ a definition is looked for: `tool/<name>/TOOL.hdlp`, and one folder deeper, as validate looks
const SLIP_DEPTH = 3;

/** A folder's items as a source lists them: a name, and whether it is a folder (links are not followed). */
export type ListFolder = (path: readonly string[]) => Promise<ReadonlyArray<{ name: string; folder: boolean }>>;

/**
 * The root items a layout check looks at (`mayBePolicies`), a slip of tools/ only when it holds a definition file within
 * `SLIP_DEPTH` levels, as validate decides: a root `tool/` of scripts was warned of by name at every scan (author21).
 */
export async function rootItemsToCheck<T extends { name: string }>(items: readonly T[], isFolder: (item: T) => boolean, list: ListFolder): Promise<T[]> {
  const checked: T[] = [];
  for (const item of items) {
    if (!mayBePolicies(item.name)) continue;
    if (!isEntryFolderSlip(item.name) || !isFolder(item) || (await holdsDefinition(list, [item.name], SLIP_DEPTH))) checked.push(item);
  }
  return checked;
}

async function holdsDefinition(list: ListFolder, path: readonly string[], depth: number): Promise<boolean> {
  if (depth === 0) return false;
  const items = await list(path).catch(() => []);
  if (items.some((item) => !item.folder && DEFINITION_NAME.test(item.name))) return true;
  for (const item of items) if (item.folder && (await holdsDefinition(list, [...path, item.name], depth - 1))) return true;
  return false;
}

/** The folder a slip such as `Tools` or `skill` is meant as: `tools`, `skills`. */
function meantFolder(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('s') ? lower : `${lower}s`;
}

/**
 * What at a registry's root is meant to hold its policies but is not read (review Q, Q5): only a plain folder named
 * `policies` is. A `policies` that is a symbolic link (`policies -> rules`), a file or a submodule, and a folder named
 * `Policies/` or `policy/`, were ignored by a git registry without a word (a folder registry followed the link), so
 * their denies never applied. Each is an error, which the policy set treats as a broken policy: every call refused
 * until it is a plain `policies/` folder. A link is refused rather than followed, in every source alike: what it
 * points to need not be in the repository, nor reviewed with it.
 */
export function rootPolicyStrays(items: readonly RootItem[]): Diagnostic[] {
  const strays: Diagnostic[] = [];
  const policies = 'policies';
  for (const { name, type } of items) {
    if (isEntryFolderSlip(name) && type === 'folder') {
      const meant = meantFolder(name);
      // a warning in a scan (nothing there was ever served, and nothing else is refused); validate makes it an error
      strays.push({ file: `${name}/`, line: 1, column: 1, severity: 'warning', code: 'ENTRY_FOLDER_NOT_READ', message: `${name}/ is not read: definitions are read from ${meant}/<name>/${definitionFile(meant)} only (a folder named ${meant}, in lower case), so nothing in it is served; rename it to ${meant}/` });
    }
    if (!MEANT_AS_POLICIES.test(name) || (name === policies && type === 'folder')) continue;
    const file = type === 'folder' ? `${name}/` : name;
    const at = { file, line: 1, column: 1, severity: 'error' as const, code: 'POLICY_NOT_READ' as const };
    if (name !== policies) strays.push({ ...at, message: `${file} is not read: policies are read from policies/<name>.hdlp only (a folder named policies, in lower case), so none of its rules apply; every call is refused until it is renamed to policies/` });
    else strays.push({ ...at, message: `policies is ${KIND_NAMES[type]}, not a folder, so none of its rules are read: policies are read from a plain policies/ folder of the repository itself; every call is refused until it is one (for a link, put the files it points to in policies/ in its place)` });
  }
  return strays;
}

function definitionFile(folder: string): string {
  return Object.values(ENTRY_LAYOUT).find((layout) => layout.folder === folder)?.file ?? 'TOOL.hdlp';
}

const KIND_NAMES: Record<RootItem['type'], string> = { folder: 'a folder', file: 'a file', symlink: 'a symbolic link', submodule: 'a git submodule' };

// what reads as a policy its author meant to apply: a folder of them, or a policy file named another way
const MEANT_AS_POLICY = /\.(hdlp|ya?ml)$/i;

/**
 * What in `policies/` the layout does not read (review P, P15): a policy is `policies/<name>.hdlp` and nothing else, so
 * `policies/strict/deploy.hdlp`, `policies/deploy.yaml` or `policies/Deploy.HDLP` never applied, and nothing said so. A
 * folder, or a file named like a policy, is an error: under policies/ an error refuses every call until it is moved
 * (an unread deny could let through what it was written to stop). Any other file (a README, a `.gitkeep`) is a warning.
 */
export function strayPolicies(items: readonly PoliciesItem[]): Diagnostic[] {
  const strays: Diagnostic[] = [];
  for (const { name, folder } of items) {
    if (!folder && name.endsWith('.hdlp') && name.length > '.hdlp'.length) continue;
    const file = folder ? `policies/${name}/` : `policies/${name}`;
    const at = { file, line: 1, column: 1, code: 'POLICY_NOT_READ' as const };
    if (folder) strays.push({ ...at, severity: 'error', message: `${file} is a folder, which is not read: policies are read from policies/<name>.hdlp only, so nothing in it applies; move each policy to policies/<name>.hdlp` });
    else if (MEANT_AS_POLICY.test(name)) strays.push({ ...at, severity: 'error', message: `${file} is not read: policies are read from policies/<name>.hdlp only (a lower-case .hdlp), so its rules never apply; rename it to policies/${name.replace(MEANT_AS_POLICY, '')}.hdlp` });
    else strays.push({ ...at, severity: 'warning', message: `${file} is not a policy: only policies/<name>.hdlp files are read` });
  }
  return strays;
}
