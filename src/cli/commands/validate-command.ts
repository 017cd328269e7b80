import { existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { ENTRY_KINDS, ENTRY_LAYOUT, formatDiagnostic, type Diagnostic, type EntryKind, type ToolIndex, eachTool } from '../../core/index.js';
import type { GatewayConfig } from '../../config/index.js';
import type { DefinitionFile } from '../../scanner/index.js';
import { JSON_OPTION, writeJson, writeLines, type Command } from '../command.js';
import { kindFolderOf, present } from '../registry-folder.js';
import { terminalSafe } from '../terminal-safe.js';

/** `hldp validate`: lint `TOOL.hdlp`, `TOOLSET.hdlp`, `SKILL.md` and `policies/*.hdlp` files in the working tree, for authors and pre-commit hooks. */
export const validateCommand: Command = {
  name: 'validate',
  usage: '[PATH...] [--staged] [--json] [--config FILE]',
  summary: 'check TOOL.hdlp, TOOLSET.hdlp, SKILL.md and policies/*.hdlp files (--staged: every one of the registry as git\'s index holds it, for a pre-commit hook): file:line:col: message per problem, exit 1 on any error or when nothing was found to check',
  options: { ...JSON_OPTION, config: { type: 'string', short: 'c' }, staged: { type: 'boolean' } },
  maxPositionals: Infinity,
  async run(flags, positionals, io) {
    const { validateDefinitionFiles } = await import('../../scanner/index.js');
    const { configFromFlags } = await import('../open-registry.js');
    const config = configFromFlags(flags, 'optional');
    const maxBytes = config.repository.maxDefinitionBytes;
    // a sandbox: block beyond the gateway's ceiling (with --config, the one it sets; else none, which allows no unix
    // sockets) is warned here, before its calls are refused there
    const sandboxCeiling = { ceiling: config.sandboxCeiling ?? {}, workspace: config.workspaceRoot };
    const sandboxPathRefusal = await sandboxPathJudge(config);
    const paths = positionals.length ? positionals : ['.'];
    const files: DefinitionFile[] = [];
    const roots = new Set<string>();
    const unread: Diagnostic[] = [];
    let found = 0;
    const stagedRoots: string[] = [];
    if (flags.staged) {
      // what the next commit holds: every definition of the registry (a deletion is seen by what names the deleted tool)
      const { stagedDefinitionFiles } = await import('../staged-files.js');
      for (const path of paths) {
        const staged = await stagedDefinitionFiles(path, maxBytes);
        found += staged.files.length + staged.unread.length;
        files.push(...staged.files);
        unread.push(...staged.unread);
        stagedRoots.push(staged.root);
      }
    }
    for (const path of flags.staged ? [] : paths) {
      if (!existsSync(path)) {
        unread.push({ file: path, line: 1, column: 1, severity: 'error', code: 'NOT_A_FILE', message: 'no such file or folder' });
        continue;
      }
      // a file under policies/ that is not policies/<name>.hdlp is never read as a policy (review P, P15): said, not linted as a TOOL.hdlp
      const misplaced = statSync(path).isFile() ? await misplacedPolicy(path) : undefined;
      if (misplaced !== undefined) {
        found += 1;
        unread.push(misplaced);
        continue;
      }
      // what the scan would not read (a tools/ folder without TOOL.hdlp, a tool.hdlp): said as the scan says it, a
      // file meant as a definition an error, and such a file given by path is not linted as if it were read (userU, F1)
      const { unreadDefinitionsAt } = await import('../unread-definitions.js');
      const notRead = unreadDefinitionsAt(path);
      unread.push(...notRead);
      found += notRead.filter((diagnostic) => diagnostic.severity === 'error').length;
      if (notRead.length && statSync(path).isFile()) continue;
      for (const { file, kind, root } of definitionFilesAt(path)) {
        found += 1;
        const read = await readDefinition(file, kind, maxBytes);
        if ('content' in read) files.push(read);
        else unread.push(read);
        if (root !== undefined) roots.add(root);
      }
    }
    // a toolset's members are checked against every tool of the repository it sits in, not only the files given
    const context: DefinitionFile[] = [];
    for (const { file, kind } of [...roots].flatMap((root) => repositoryFiles(root))) {
      const read = await readDefinition(file, kind, maxBytes);
      if ('content' in read) context.push(read);
    }
    // what under each registry's policies/ is never read, as a scan reports it (a stray policy refuses every call there)
    // and what at its root is meant as policies/ but is not read (a `policies` link, `Policies/`: review Q, Q5)
    const { strayPolicies } = await import('../../scanner/index.js');
    for (const root of flags.staged ? [] : roots) {
      const folder = join(root, ENTRY_LAYOUT.policy.folder);
      const items = existsSync(folder) && statSync(folder).isDirectory() ? readdirSync(folder, { withFileTypes: true }) : [];
      const shown = relative(process.cwd(), root);
      const strays = [...(await rootStraysAt(root)), ...strayPolicies(items.map((item) => ({ name: item.name, folder: item.isDirectory() })))];
      for (const stray of strays) unread.push({ ...stray, file: shown ? join(shown, stray.file) : stray.file });
    }
    // a tool's deadline above the gateway's ceiling is cut there: told only against a config given (review userZ9, U9-2)
    const parseOptions = { maxBytes, sandboxPathRefusal, sandboxCeiling, ...(flags.config === undefined ? {} : { callCeilingMs: config.maxCallTimeoutMs }) };
    let result = validateDefinitionFiles(files, context, parseOptions);
    // a name clash is settled as the gateway will settle it once these files are committed: the claim served at HEAD
    // keeps its name or alias and the new one is refused, not the first by path order (userZ5, F1). HEAD is scanned only
    // at a clash, as a scan walks git history only at one
    const { hasNameClash, headIndexOf } = await import('../head-index.js');
    if (hasNameClash(result.index)) {
      const previous = await headIndexOf(flags.staged ? stagedRoots : roots, { cacheDir: config.cacheDir, maxDefinitionBytes: maxBytes });
      if (previous) result = validateDefinitionFiles(files, context, parseOptions, previous);
    }
    // a schema the gateway cannot compile, a format it does not know (review userY, Y6), a default its own schema
    // refuses (review userW, W1): asked of the gateway's own params validator
    const { gatewaySchemaProblems } = await import('../params-schema-checks.js');
    const texts = new Map(files.map((file) => [file.path, Buffer.from(file.content).toString('utf8')]));
    // a file refused for its size is not read again: yaml would build it whole (review Z18, Z18-3; Z19, Z19-5)
    const outsized = new Set(result.errors.filter((diagnostic) => diagnostic.code === 'YAML_RESOURCE_LIMIT').map((diagnostic) => diagnostic.file));
    const compiled = gatewaySchemaProblems(result.index, new Set(texts.keys()), texts, outsized);
    // rules the gateway reads as written but whose author may not mean them (an allow that skips require_confirm)
    const { policyWarnings, undecidableApprovals, PolicySet } = await import('../../policy/index.js');
    const given = new Set(files.map((file) => file.path));
    // a condition on a param no tool of its rule takes: the gateway refuses the policy, and so every call (review userZ9, U9-12)
    const conditions = result.index.policies?.length ? PolicySet.of(result.index).conditions.filter((diagnostic) => given.has(diagnostic.file)) : [];
    // what a file refused for another error declares is still checked against the registry (review userZ9, U9-4)
    const { refusedSkillToolsetErrors, refusedToolAliasWarnings } = await import('../refused-definitions.js');
    // …but not a file refused for its size (above)
    const readable = files.filter((file) => !outsized.has(file.path));
    const refusedAliases = refusedToolAliasWarnings(readable, result.index);
    const { refusedPolicyProblems } = await import('../refused-policies.js');
    const refusedPolicies = refusedPolicyProblems(readable, result.index);
    const errors = [...refusedSkillToolsetErrors(readable, result.index), ...refusedPolicies.filter((diagnostic) => diagnostic.severity === 'error'), ...unread.filter((diagnostic) => diagnostic.severity === 'error'), ...result.errors, ...compiled.filter((diagnostic) => diagnostic.severity === 'error'), ...conditions.filter((diagnostic) => diagnostic.severity === 'error')];
    // with the deployment's config, an approve rule no principal of it may decide (review userV, V3)
    const deployment = config.file ? [...undecidableApprovals(result.index, [...config.principals, ...(config.principalsLeftOut ?? [])]), ...(await targetWarnings(result.index, readable, config))] : [];
    // a definition whose wording takes another tool's requests, on the one that now wins them (review Z6, Z6-2)
    const { intentOverlapWarnings } = await import('../intent-overlap-warnings.js');
    const overlap = await intentOverlapWarnings(result.index, new Map([...context, ...files].map((file) => [file.path, Buffer.from(file.content).toString('utf8')])));
    const warnings = [...unread.filter((diagnostic) => diagnostic.severity !== 'error'), ...result.warnings, ...compiled.filter((diagnostic) => diagnostic.severity !== 'error'), ...conditions.filter((diagnostic) => diagnostic.severity !== 'error'), ...refusedPolicies.filter((diagnostic) => diagnostic.severity !== 'error'), ...[...policyWarnings(result.index), ...deployment, ...overlap.warnings, ...refusedAliases].filter((warning) => given.has(warning.file))];
    const ordered = [...errors, ...warnings].sort(byPlace);
    if (flags.json) writeJson(io, { files: found, paths, errors, warnings });
    else {
      // a diagnostic quotes the file's own text: one line each, whatever line feed it holds
      writeLines(io.stdout, ordered.map((diagnostic) => terminalSafe(formatDiagnostic(diagnostic))));
      io.stderr.write(`${found} file(s) under ${paths.join(', ')}${flags.staged ? ' as staged' : ''}: ${errors.length} error(s), ${warnings.length} warning(s)\n`);
      if (overlap.skipped !== undefined) io.stderr.write(`${overlap.skipped}\n`);
      if (found === 0 && flags.staged) {
        io.stderr.write(`no definition staged under ${paths.join(', ')} (looked for tools/*/TOOL.hdlp, toolsets/*/TOOLSET.hdlp, skills/*/SKILL.md and policies/*.hdlp in git's index); give the folder that holds tools/\n`);
      } else if (found === 0) {
        io.stderr.write('no definition found (looked for PATH/TOOL.hdlp, PATH/tools/*/TOOL.hdlp, PATH/toolsets/*/TOOLSET.hdlp, PATH/skills/*/SKILL.md, PATH/policies/*.hdlp and PATH/*/TOOL.hdlp); pass a tools repository, e.g. hldp validate native-repo\n');
      }
    }
    return errors.length || found === 0 ? 1 : 0;
  },
};

/** With the deployment's config, a tool naming a gatekeeper, API or MCP server it lacks, at the field (review userW, W2). */
async function targetWarnings(index: Pick<ToolIndex, 'tools'>, files: DefinitionFile[], config: GatewayConfig): Promise<Diagnostic[]> {
  const { configuredTargets, unknownTargetWarnings } = await import('../../config/index.js');
  const served = new Set([...eachTool(index)].map((tool) => tool.source.path));
  const refused = files.filter((file) => (file.kind ?? 'tool') === 'tool' && !served.has(file.path)).map((file) => file.path);
  return unknownTargetWarnings(eachTool(index), new Map(files.map((file) => [file.path, new TextDecoder().decode(file.content)])), configuredTargets(config), refused);
}

/**
 * The sandbox's own judgement of a declared `sandbox.filesystem` path, with what this configuration's gateway would
 * guard: its cache, data and receipts hidden, its repository and code read-only, in its workspace.
 */
async function sandboxPathJudge(config: GatewayConfig): Promise<(kind: 'read' | 'write', path: string) => string | undefined> {
  const { declaredPathRefusal, runAsHome } = await import('../../sandbox/index.js');
  const { OWN_FOLDERS } = await import('../../config/index.js');
  const receipts = config.receiptsDb;
  // the home of the user a root gateway of this configuration runs tools as: its tools can write what that user can
  const home = runAsHome(config.sandboxRunAs);
  const rules = {
    workspace: realPathOf(config.workspaceRoot),
    hide: [config.cacheDir, config.dataDir, receipts, `${receipts}-wal`, `${receipts}-shm`, `${receipts}-journal`, ...(config.file ? [config.file] : []), ...config.sandboxHide],
    protect: [...(/^https?:\/\//i.test(config.repository.source) ? [] : [config.repository.source]), ...OWN_FOLDERS],
    ...(config.sandboxCeiling?.readableRoots ? { readableRoots: config.sandboxCeiling.readableRoots } : {}),
    ...(config.sandboxCeiling?.writableRoots ? { writableRoots: config.sandboxCeiling.writableRoots } : {}),
    ...(home !== undefined ? { runAsHome: home } : {}),
  };
  return (kind, path) => declaredPathRefusal(kind, path, rules);
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

interface FoundFile {
  file: string;
  kind: EntryKind;
  /** the repository the file sits in, when it is laid out as one (`<root>/tools/<name>/TOOL.hdlp`) */
  root?: string;
}

const KIND_OF_FILE = new Map(ENTRY_KINDS.filter((kind) => !ENTRY_LAYOUT[kind].flat).map((kind) => [ENTRY_LAYOUT[kind].file, kind]));

/** A file as given, a repository folder (tools/, toolsets/, skills/), an entry folder, or a tools/ (toolsets/, skills/) folder itself. */
function definitionFilesAt(path: string): FoundFile[] {
  if (statSync(path).isFile()) return [located(path, KIND_OF_FILE.get(basename(path)) ?? flatKindOf(path) ?? 'tool')];
  const own = ENTRY_KINDS.filter((kind) => !ENTRY_LAYOUT[kind].flat).map((kind) => join(path, ENTRY_LAYOUT[kind].file)).filter((file) => present(file));
  if (own.length) return own.map((file) => located(file, KIND_OF_FILE.get(basename(file))!));
  // a registry whose own folder is named tools/ is read as a registry (kindFolderOf), as `serve --repo` reads it
  const kindFolder = kindFolderOf(path);
  if (kindFolder) return entriesOf(resolve(path, '..'), [kindFolder]);
  if (ENTRY_KINDS.some((kind) => existsSync(join(path, ENTRY_LAYOUT[kind].folder)))) return entriesOf(path, ENTRY_KINDS);
  // a folder of tool folders under another name
  return readdirSync(path, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(path, entry.name, ENTRY_LAYOUT.tool.file))
    .filter((file) => present(file))
    .map((file) => ({ file, kind: 'tool' as const }));
}

function entriesOf(root: string, kinds: readonly EntryKind[]): FoundFile[] {
  return kinds.flatMap((kind) => repositoryFiles(root, kind));
}

/** Every definition file of one kind (or of all kinds) under a repository root. */
function repositoryFiles(root: string, only?: EntryKind): FoundFile[] {
  return ENTRY_KINDS.filter((kind) => only === undefined || kind === only).flatMap((kind) => {
    const top = join(root, ENTRY_LAYOUT[kind].folder);
    if (!existsSync(top) || !statSync(top).isDirectory()) return [];
    const { file: ending, flat } = ENTRY_LAYOUT[kind];
    if (flat) {
      return readdirSync(top, { withFileTypes: true })
        .filter((entry) => !entry.isDirectory() && entry.name.endsWith(ending) && entry.name.length > ending.length)
        .map((entry) => ({ file: join(top, entry.name), kind, root }));
    }
    return readdirSync(top, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(top, entry.name, ENTRY_LAYOUT[kind].file))
      .filter((file) => present(file))
      .map((file) => ({ file, kind, root }));
  });
}

// a file such as policies/ops.hdlp: its kind is told by its folder
/**
 * Why a file given by path under a `policies/` folder is not read as a policy, by the rule a scan applies to what it
 * lists there (`strayPolicies`): the file itself when it sits in policies/, the folder holding it when that folder is
 * in policies/.
 */
async function misplacedPolicy(path: string): Promise<Diagnostic | undefined> {
  const absolute = resolve(path);
  const policies = ENTRY_LAYOUT.policy.folder;
  // a file in a folder meant as policies/ that a scan does not read (a link, `Policies/`): that folder is named
  const { mayBePolicies, rootPolicyStrays } = await import('../../scanner/index.js');
  const holder = dirname(absolute);
  // tools/policies/TOOL.hdlp is the tool `policies`, not a policy
  if (ENTRY_KINDS.some((kind) => !ENTRY_LAYOUT[kind].flat && ENTRY_LAYOUT[kind].folder === basename(dirname(holder)))) return undefined;
  if (mayBePolicies(basename(holder))) {
    const [stray] = rootPolicyStrays([{ name: basename(holder), type: rootItemType(holder) }]);
    if (stray) return { ...stray, file: path };
  }
  const item =
    basename(dirname(absolute)) === policies
      ? { name: basename(absolute), folder: false }
      : basename(dirname(dirname(absolute))) === policies && !KIND_OF_FILE.has(basename(absolute))
        ? { name: basename(dirname(absolute)), folder: true }
        : undefined;
  if (item === undefined) return undefined;
  const { strayPolicies } = await import('../../scanner/index.js');
  const [stray] = strayPolicies([item]);
  return stray && { ...stray, file: path };
}

/** What at a registry's root is meant as its policies/ folder but is not read, as a scan finds it (`rootPolicyStrays`). */
async function rootStraysAt(root: string): Promise<Diagnostic[]> {
  const { isEntryFolderSlip, mayBePolicies, rootPolicyStrays } = await import('../../scanner/index.js');
  const { asError } = await import('../staged-files.js');
  // a slip of tools/ (`Tools/`, `tool/`) is told when it holds a definition file, which no scan serves (userZ7, F7)
  const names = readdirSync(root).filter((name) => mayBePolicies(name) && (!isEntryFolderSlip(name) || holdsDefinition(join(root, name), 3)));
  return rootPolicyStrays(names.map((name) => ({ name, type: rootItemType(join(root, name)) }))).map(asError);
}

// whether a folder holds a `*.hdlp` or `SKILL.md` within `depth` levels (links not followed)
function holdsDefinition(folder: string, depth: number): boolean {
  if (depth === 0 || !lstatSync(folder).isDirectory()) return false;
  return readdirSync(folder, { withFileTypes: true }).some((item) => (item.isFile() && /\.hdlp$|^skill\.md$/i.test(item.name)) || (item.isDirectory() && holdsDefinition(join(folder, item.name), depth - 1)));
}

// as a folder registry sees it: the link itself, a folder holding a `.git` as a submodule's checkout
function rootItemType(path: string): 'folder' | 'file' | 'symlink' | 'submodule' {
  const stats = lstatSync(path);
  if (stats.isSymbolicLink()) return 'symlink';
  if (!stats.isDirectory()) return 'file';
  return existsSync(join(path, '.git')) ? 'submodule' : 'folder';
}

function flatKindOf(path: string): EntryKind | undefined {
  const folder = basename(dirname(resolve(path)));
  return ENTRY_KINDS.find((kind) => ENTRY_LAYOUT[kind].flat && ENTRY_LAYOUT[kind].folder === folder && path.endsWith(ENTRY_LAYOUT[kind].file));
}

// `<root>/<kind folder>/<name>/<file>` (flat: `<root>/<kind folder>/<name><file>`): the root is three (two) folders up
function located(file: string, kind: EntryKind): FoundFile {
  const absolute = resolve(file);
  const kindFolder = ENTRY_LAYOUT[kind].flat ? dirname(absolute) : dirname(dirname(absolute));
  return basename(kindFolder) === ENTRY_LAYOUT[kind].folder ? { file, kind, root: dirname(kindFolder) } : { file, kind };
}

// the size is judged before the file is read, as the scanner does
async function readDefinition(file: string, kind: EntryKind, maxBytes: number): Promise<DefinitionFile | Diagnostic> {
  const { readBounded } = await import('../../scanner/index.js');
  const shown = relative(process.cwd(), resolve(file)) || file;
  const { file: name, flat } = ENTRY_LAYOUT[kind];
  const content = await readBounded(file, maxBytes, { file: shown, line: 1, column: 1 }, flat ? shown : name);
  if (!Buffer.isBuffer(content)) return content;
  const folder = flat ? basename(file).slice(0, -name.length) : basename(dirname(resolve(file)));
  return { ...(kind === 'tool' ? {} : { kind }), path: shown, folder, oid: shown, content };
}

function byPlace(a: Diagnostic, b: Diagnostic): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
}
