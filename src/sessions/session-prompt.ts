import type { SkillDefinition, ToolDefinition } from '../core/index.js';
import { META_TOOLS } from '../export/index.js';
import { promptBudget, renderPromptBlock, renderTools, type CoreToolLine, type PromptBlock, type RenderedTools } from './prompt-block.js';
import type { RegistryView } from './registry-view.js';
import type { SessionState } from './session-state.js';
import type { SessionView } from './session-view.js';
import { signature } from './signatures.js';

/** `?window_tokens=N` or `?chars=N`. */
export interface PromptOptions {
  windowTokens?: number;
  chars?: number;
}

// the meta-tools as the block shows them: shorter than their specs, for small models
const CORE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  toolset: 'list, enable or disable toolsets; enabling one lists its tools',
  tool_find: 'find tools for what you want to do; what it finds is yours for this turn',
  tool_load: 'bring a tool or group from the lists below into this turn',
  tool_call: 'run any tool you may use by its name',
  read_skill: 'read a skill: steps, commands, pitfalls',
  confirm: 'run a call that waits for confirmation, with its token',
};

/** The core meta-tools as one-line signatures. */
export const CORE_TOOL_LINES: readonly CoreToolLine[] = META_TOOLS.map((tool) => ({
  signature: signature(tool.name, tool.inputSchema),
  description: CORE_DESCRIPTIONS[tool.name] ?? tool.description,
}));

// a view never changes once computed, and sessions with the same toolsets share it: its lines are rendered once
const renderedByView = new WeakMap<SessionView, Map<string, RenderedTools>>();

/** The prompt block of one session's view. */
export function promptBlockOf(
  registry: RegistryView,
  view: SessionView,
  state: SessionState | undefined,
  skills: readonly SkillDefinition[],
  groupDescriptions: Readonly<Record<string, string>>,
  options: PromptOptions,
): PromptBlock {
  const active = state?.toolsets ?? [];
  const scoped = active.length > 0;
  const visible = scoped ? view.visible : [];
  // with no toolset active every tool is visible: the block names them all (budgeted) instead of giving each a signature
  const named = (): ToolDefinition[] => {
    if (scoped) return view.reserved;
    const listed = new Set([...view.visible, ...view.reserved]);
    return registry.index.tools.filter((tool) => listed.has(tool));
  };
  let byKey = renderedByView.get(view);
  if (!byKey) renderedByView.set(view, (byKey = new Map()));
  const key = `${scoped}\0${JSON.stringify(groupDescriptions)}`;
  let rendered = byKey.get(key);
  if (!rendered) byKey.set(key, (rendered = renderTools(visible, named(), groupDescriptions)));
  return renderPromptBlock({ core: CORE_TOOL_LINES, toolsets: registry.index.toolsets, active, visible, named: [], skills, groupDescriptions, budget: promptBudget(options), rendered });
}
