import { createHash } from 'node:crypto';
import type { ToolDefinition } from '../core/index.js';
import type { RegistryView } from './registry-view.js';
import type { SessionState } from './session-state.js';
import { classifyTool, type Attention, type RightsLayer, type Subject } from './visibility.js';

/** Every tool of the index sorted by what it is for one session (meta-tools are not registry tools: they are always visible). */
export interface SessionView {
  commit: string;
  /** listed with their schemas, in index order */
  visible: ToolDefinition[];
  /** listed by name and purpose only */
  reserved: ToolDefinition[];
  hidden: number;
  forbidden: number;
  /** where the visible tools are in the index's order (positions), and the hidden and forbidden ones: what a block leaves out of its named tools */
  positions: { visible: readonly number[]; unlisted: readonly number[] };
  /** equal digests, identical listed tools (names and definitions): a change of digest is a `list_changed` */
  digest: string;
}

/** How many distinct views (active toolsets × loaded tools × subject) are kept per index. */
const VIEWS_KEPT = 512;

/** Views of one index, shared by every session that has the same toolsets, loaded tools and subject. */
export class ViewCache {
  private readonly views = new Map<string, SessionView>();

  constructor(
    readonly registry: RegistryView,
    private readonly rights: readonly RightsLayer[],
  ) {}

  /** The view of a session (expired entries must already be gone), computed once per distinct attention; without one, of a caller acting for `principal`. */
  viewOf(state: SessionState | undefined, principal?: string): SessionView {
    const attention: Attention = { toolsets: state?.toolsets ?? [], loaded: new Set(state?.loaded.map((tool) => tool.name)) };
    const acting = state?.principal ?? principal;
    const subject: Subject = { ...(state ? { session: state.id } : {}), ...(acting === undefined ? {} : { principal: acting }) };
    const key = JSON.stringify([subject.principal ?? null, attention.toolsets.map((toolset) => toolset.name).sort(), [...attention.loaded].sort()]);
    let view = this.views.get(key);
    if (view) {
      this.views.delete(key);
      this.views.set(key, view);
      return view;
    }
    view = computeView(this.registry, this.rights, subject, attention);
    this.views.set(key, view);
    if (this.views.size > VIEWS_KEPT) this.views.delete(this.views.keys().next().value!);
    return view;
  }
}

/** Asks the visibility lattice (`classifyTool`, `decideVisibility` without the words) about every tool of the index, as its own name. */
export function computeView(registry: RegistryView, rights: readonly RightsLayer[], subject: Subject, attention: Attention): SessionView {
  const visible: ToolDefinition[] = [];
  const reserved: ToolDefinition[] = [];
  let hidden = 0;
  let forbidden = 0;
  const visibleAt: number[] = [];
  const unlistedAt: number[] = [];
  const hash = createHash('sha1');
  const input = { registry, rights, subject, attention };
  registry.index.tools.forEach((tool, at) => {
    const { state } = classifyTool(tool, tool.name, input);
    if (state === 'visible') {
      visible.push(tool);
      visibleAt.push(at);
      // the oid changes whenever anything in the tool's folder does
      hash.update(tool.name).update('\0').update(tool.source.oid).update('\n');
      return;
    }
    if (state === 'reserved') reserved.push(tool);
    else {
      unlistedAt.push(at);
      if (state === 'hidden') hidden += 1;
      else forbidden += 1;
    }
  });
  return { commit: registry.index.commit, visible, reserved, hidden, forbidden, positions: { visible: visibleAt, unlisted: unlistedAt }, digest: hash.digest('hex') };
}
