import { eachTool, toolsOf, type SkillDefinition, type ToolDefinition, type ToolIndex, type ToolsetDefinition } from '../core/index.js';
import { META_TOOLS } from '../export/index.js';
import { promptBudget, renderPromptBlock, renderTools, type CoreToolLine, type PromptBlock, type RenderedTools } from './prompt-block.js';
import type { RegistryView } from './registry-view.js';
import type { SessionState } from './session-state.js';
import type { SessionView } from './session-view.js';
import { IndexNamedLines } from './named-lines.js';
import { oneLine, signature, signatureLine } from './signatures.js';

/** `?window_tokens=N` or `?chars=N`. */
export interface PromptOptions {
  windowTokens?: number;
  chars?: number;
}

// the meta-tools as the block shows them: shorter than their specs, for small models
const CORE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  toolset: 'list, enable or disable toolsets; enabling one lists its tools',
  tool_find: 'find tools for what you want to do; what it finds with confidence high is yours for this turn',
  tool_load: 'bring a tool or group from the lists below into this turn',
  tool_call: 'run any tool you may use by its name',
  read_skill: 'read a skill: steps, commands, pitfalls',
  confirm: 'run a call that waits for confirmation, with its token',
  approval_wait: 'wait for a person to decide a pending call; answers its receipt',
};

/** The core meta-tools as one-line signatures. */
export const CORE_TOOL_LINES: readonly CoreToolLine[] = META_TOOLS.map((tool) => ({
  signature: signature(tool.name, tool.inputSchema),
  description: CORE_DESCRIPTIONS[tool.name] ?? tool.description,
}));

// a view never changes once computed, and sessions with the same toolsets share it: its lines are rendered once
const renderedByView = new WeakMap<SessionView, Map<string, RenderedTools>>();
// and its blocks too: the same view, active toolsets (names, order, scopes), skills and budget give the same text
const blocks = new Map<string, PromptBlock>();
/** Blocks kept, of all views (a block is at most 16,000 budgeted characters plus the active tools' signatures); the least recently used goes first. */
const BLOCKS_KEPT = 256;
// each view's number, for the blocks' keys
const viewNumbers = new WeakMap<SessionView, number>();
let views = 0;
// the config's group descriptions, as a cache key, once per object
const groupKeys = new WeakMap<object, string>();

/** The prompt block of one session's view. */
export function promptBlockOf(
  registry: RegistryView,
  view: SessionView,
  state: SessionState | undefined,
  skills: readonly SkillDefinition[],
  groupDescriptions: Readonly<Record<string, string>>,
  options: PromptOptions,
  toolsets: readonly ToolsetDefinition[] = registry.index.toolsets,
  gone: ReadonlyMap<string, string> = new Map(),
): PromptBlock {
  const active = state?.toolsets ?? [];
  const scoped = active.length > 0;
  // with no toolset active every tool is visible: the block names them all (budgeted) instead of giving each a signature
  const visible = (): ToolDefinition[] => (scoped ? view.visible : []);
  const named = (): ToolDefinition[] => {
    if (scoped) return view.reserved;
    // a view read over another index than the registry's: its tools by name, one at a time (not index.tools, which keeps them all)
    const listed = new Set([...view.visible, ...view.reserved].map((tool) => tool.name));
    const named: ToolDefinition[] = [];
    for (const tool of eachTool(registry.index)) if (listed.has(tool.name)) named.push(tool);
    return named;
  };
  const budget = promptBudget(options);
  let groupKey = groupKeys.get(groupDescriptions);
  if (groupKey === undefined) groupKeys.set(groupDescriptions, (groupKey = JSON.stringify(groupDescriptions)));
  let number = viewNumbers.get(view);
  if (number === undefined) viewNumbers.set(view, (number = ++views));
  const blockKey = `${number}\0${budget}\0${groupKey}\0${active.map((toolset) => `${toolset.name}:${toolset.scope}`).join(',')}\0${skills.map((skill) => skill.name).join(',')}\0${toolsets.map((toolset) => toolset.name).join(',')}\0${[...gone.values()].join('\0')}`;
  const cached = blocks.get(blockKey);
  if (cached) {
    blocks.delete(blockKey);
    blocks.set(blockKey, cached);
    return cached;
  }
  let byKey = renderedByView.get(view);
  if (!byKey) renderedByView.set(view, (byKey = new Map()));
  const key = `${scoped}\0${groupKey}`;
  let rendered = byKey.get(key);
  if (!rendered) byKey.set(key, (rendered = renderedTools(registry, view, scoped, groupDescriptions, groupKey) ?? renderTools(visible(), named(), groupDescriptions, view.markersOf)));
  const block = freezeBlock(renderPromptBlock({ core: CORE_TOOL_LINES, toolsets, active, gone, visible: [], named: [], skills, groupDescriptions, budget, rendered }));
  blocks.set(blockKey, block);
  if (blocks.size > BLOCKS_KEPT) blocks.delete(blocks.keys().next().value!);
  return block;
}

// the named lines of the whole index, once per index (a rescan makes a new one) and group descriptions
const namedByIndex = new WeakMap<ToolIndex, Map<string, IndexNamedLines>>();

/**
 * A view's lines from its index's: the named tools are the index's but the visible ones (with a toolset active)
 * and the hidden and forbidden ones, so only the groups of those few are worked out again.
 */
function renderedTools(registry: RegistryView, view: SessionView, scoped: boolean, groupDescriptions: Readonly<Record<string, string>>, groupKey: string): RenderedTools | undefined {
  const { index } = registry;
  if (view.commit !== index.commit) return undefined;
  let byGroups = namedByIndex.get(index);
  if (!byGroups) namedByIndex.set(index, (byGroups = new Map()));
  let lines = byGroups.get(groupKey);
  // each description read from its tool when a block shows it, the tool not kept: the lines hold none
  const sequence = toolsOf(index);
  if (!lines) byGroups.set(groupKey, (lines = new IndexNamedLines(eachTool(index), groupDescriptions, (at) => oneLine((sequence.peek ? sequence.peek(at) : sequence.at(at))!.intent))));
  const excluded = scoped ? mergeSorted(view.positions.visible, view.positions.unlisted) : view.positions.unlisted;
  return { signatures: scoped ? view.visible.map((tool) => `- ${signatureLine(tool, tool.name, view.markersOf(tool))}`) : [], named: lines.linesWithout(excluded, view.marks) };
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  if (b.length === 0) return [...a];
  if (a.length === 0) return [...b];
  return [...a, ...b].sort((x, y) => x - y);
}

// a cached block is handed to every caller that asks for the same state: none may change it for the others
function freezeBlock(block: PromptBlock): PromptBlock {
  Object.freeze(block.budget);
  Object.freeze(block.dropped.names);
  Object.freeze(block.dropped);
  return Object.freeze(block);
}
