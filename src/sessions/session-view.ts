import { createHash } from 'node:crypto';
import { eachTool, toolCount, toolNameAt, toolsOf, type ToolDefinition, type ToolIndex } from '../core/index.js';
import type { RegistryView } from './registry-view.js';
import type { SessionState } from './session-state.js';
import { toolMarkers } from './signatures.js';
import { baseListReason, classifyAttention, rightsAndAdvertising, type Attention, type RightsLayer, type Subject, type VisibilityInput } from './visibility.js';

/**
 * Every tool of the index sorted by what it is for one session (meta-tools are not registry tools: they are always
 * visible). A view holds positions, never definitions: with no toolset active every tool is visible, and a view that
 * held them would keep every definition of an index served from the scan cache (issue #18: ~170 MB at 100,000 tools).
 */
export interface SessionView {
  commit: string;
  /** listed with their schemas, in index order: made anew at each read (at 100,000 tools, read `positions` and `isVisible` instead) */
  readonly visible: ToolDefinition[];
  /** listed by name and purpose only, in index order: made anew at each read, as `visible` */
  readonly reserved: ToolDefinition[];
  hidden: number;
  forbidden: number;
  /** where the visible, reserved, and hidden or forbidden (unlisted) tools are in the index's order: what a block leaves out of its named tools */
  positions: { visible: readonly number[]; reserved: readonly number[]; unlisted: readonly number[] };
  /** whether the registry tool of that exact name is visible, without making any tool */
  isVisible(name: string): boolean;
  /** equal digests, identical listed tools (names and definitions): a change of digest is a `list_changed` */
  digest: string;
  /** by position, the tools whose mode markers the subject's rights set apart from their own (`toolMarkers`): approval rules */
  marks: ReadonlyMap<number, readonly string[]>;
  /** a tool's mode markers for this view's subject: what the approval rules in force for it decide, else the tool's own */
  markersOf(tool: ToolDefinition): readonly string[];
}

/** How many distinct views (active toolsets × loaded tools × subject) are kept per index. */
const VIEWS_KEPT = 512;

/** How many subjects' rights passes are kept per index (one per principal in use). */
const PASSES_KEPT = 16;

/** Views of one index, shared by every session that has the same toolsets, loaded tools and subject. */
export class ViewCache {
  private readonly views = new Map<string, SessionView>();
  private readonly passes = new Map<string, RightsPass>();

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
    view = computeView(this.registry, this.rights, subject, attention, this.passOf(subject));
    this.views.set(key, view);
    if (this.views.size > VIEWS_KEPT) this.views.delete(this.views.keys().next().value!);
    return view;
  }

  /** The toolsets of which the principal (undefined: no principal) may use at least one tool, by their names. */
  usableToolsets(principal: string | undefined): ReadonlySet<string> {
    return this.passOf(principal === undefined ? {} : { principal }).usableToolsets;
  }

  // what no toolset or loaded tool changes is worked out once per subject: a view then reads names, not tools
  private passOf(subject: Subject): RightsPass {
    const subjectKey = JSON.stringify(subject.principal ?? null);
    let pass = this.passes.get(subjectKey);
    if (!pass) {
      pass = rightsPass(this.registry, this.rights, subject);
      this.passes.set(subjectKey, pass);
      if (this.passes.size > PASSES_KEPT) this.passes.delete(this.passes.keys().next().value!);
    }
    return pass;
  }
}

/**
 * What the rights and advertising layers say of every tool for one subject, and what a view's digest reads of each:
 * the part of a view that no toolset or loaded tool changes (keyed, as views are, by the subject's principal).
 */
export interface RightsPass {
  /** per position: FORBIDDEN, HIDDEN, OUTSIDE_BASE_LIST (a layer's `reserve` answered), or 0 */
  states: Uint8Array;
  /** per position, the oid of the tool's folder */
  oids: string[];
  /** the toolsets holding at least one tool the subject may use: the others are not offered to it (visible ⊆ allowed) */
  usableToolsets: ReadonlySet<string>;
  /** by position, the markers a layer gives a tool the subject may use, where they differ from the tool's own */
  marks: Map<number, readonly string[]>;
}

const FORBIDDEN = 1;
const HIDDEN = 2;
const OUTSIDE_BASE_LIST = 3;
const NO_ATTENTION: Attention = { toolsets: [], loaded: new Set() };

/** Asks the rights and advertising layers about every tool of the index, one at a time (none kept). */
export function rightsPass(registry: RegistryView, rights: readonly RightsLayer[], subject: Subject): RightsPass {
  const count = toolCount(registry.index);
  const states = new Uint8Array(count);
  const oids: string[] = new Array(count);
  const input: VisibilityInput = { registry, rights, subject, attention: NO_ATTENTION };
  const usableToolsets = new Set<string>();
  const marks = new Map<number, readonly string[]>();
  const marking = rights.filter((layer) => layer.markers !== undefined);
  let allowedAny = false;
  let at = 0;
  // one tool at a time: reading index.tools would make and keep every definition of a lazily read index
  for (const tool of eachTool(registry.index)) {
    const because = rightsAndAdvertising(tool, tool.name, input);
    states[at] = because?.state === 'forbidden' ? FORBIDDEN : because ? HIDDEN : baseListReason(tool, input) === undefined ? 0 : OUTSIDE_BASE_LIST;
    oids[at] = tool.source.oid;
    if (states[at] !== FORBIDDEN) for (const toolset of registry.toolsetsNaming(tool.name)) usableToolsets.add(toolset);
    if (states[at] !== FORBIDDEN && marking.length > 0) markOf(tool, at, marking, subject, registry.index, marks);
    allowedAny ||= states[at] !== FORBIDDEN;
    at += 1;
  }
  if (allowedAny) for (const toolset of registry.wholeRegistryToolsets) usableToolsets.add(toolset);
  return { states, oids, usableToolsets, marks };
}

// the first layer's markers for the tool, kept only where they differ from the tool's own: most tools keep theirs
function markOf(tool: ToolDefinition, at: number, layers: readonly RightsLayer[], subject: Subject, index: ToolIndex, marks: Map<number, readonly string[]>): void {
  for (const layer of layers) {
    const markers = layer.markers!(tool, subject, index);
    if (markers === undefined) continue;
    const own = toolMarkers(tool);
    if (markers.length !== own.length || markers.some((marker, place) => marker !== own[place])) marks.set(at, markers);
    return;
  }
}

/**
 * Asks the visibility lattice (`classifyTool`, `decideVisibility` without the words) about every tool of the index, as
 * its own name: the rights and advertising layers as `pass` recorded them (worked out here without one), attention by name.
 */
export function computeView(registry: RegistryView, rights: readonly RightsLayer[], subject: Subject, attention: Attention, pass = rightsPass(registry, rights, subject)): SessionView {
  const { index } = registry;
  let hidden = 0;
  let forbidden = 0;
  const visibleAt: number[] = [];
  const reservedAt: number[] = [];
  const unlistedAt: number[] = [];
  const hash = createHash('sha1');
  const input: VisibilityInput = { registry, rights, subject, attention };
  const sequence = toolsOf(index);
  const { states, oids } = pass;
  for (let at = 0; at < states.length; at++) {
    const known = states[at]!;
    if (known === FORBIDDEN || known === HIDDEN) {
      unlistedAt.push(at);
      if (known === HIDDEN) hidden += 1;
      else forbidden += 1;
      continue;
    }
    const name = toolNameAt(sequence, at)!;
    const { state } = classifyAttention(name, input, () => (known === OUTSIDE_BASE_LIST ? '' : undefined));
    if (state === 'visible') {
      visibleAt.push(at);
      // the oid changes whenever anything in the tool's folder does
      hash.update(name).update('\0').update(oids[at]!).update('\n');
    } else reservedAt.push(at);
  }
  return {
    commit: index.commit,
    get visible() {
      return toolsAtPositions(index, visibleAt);
    },
    get reserved() {
      return toolsAtPositions(index, reservedAt);
    },
    hidden,
    forbidden,
    positions: { visible: visibleAt, reserved: reservedAt, unlisted: unlistedAt },
    isVisible: (name) => {
      const position = positionOfName(index, name);
      return position !== undefined && includesSorted(visibleAt, position);
    },
    digest: hash.digest('hex'),
    marks: pass.marks,
    markersOf: (tool) => {
      const position = pass.marks.size === 0 ? undefined : positionOfName(index, tool.name);
      return (position === undefined ? undefined : pass.marks.get(position)) ?? toolMarkers(tool);
    },
  };
}

/**
 * The tools at those positions (ascending) of the index, in order, none kept by it: most of them are made walking the
 * index once; fewer, each by its position.
 */
export function toolsAtPositions(index: ToolIndex, positions: readonly number[]): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  if (positions.length === 0) return tools;
  // a walk makes every tool, wanted or not: for up to half of them, lookups (which the index remembers weakly) make fewer
  if (positions.length * 2 < toolCount(index)) {
    const sequence = toolsOf(index);
    for (const position of positions) tools.push(sequence.at(position)!);
    return tools;
  }
  let at = 0;
  let next = 0;
  for (const tool of eachTool(index)) {
    if (at++ !== positions[next]) continue;
    tools.push(tool);
    if (++next === positions.length) break;
  }
  return tools;
}

/** Where the tool of that exact name is in the index (tools are sorted by name), without making any tool. */
export function positionOfName(index: ToolIndex, name: string): number | undefined {
  const sequence = toolsOf(index);
  let low = 0;
  let high = sequence.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = toolNameAt(sequence, middle)!;
    if (found === name) return middle;
    if (found < name) low = middle + 1;
    else high = middle - 1;
  }
  return undefined;
}

function includesSorted(sorted: readonly number[], value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = sorted[middle]!;
    if (found === value) return true;
    if (found < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
