import { declaredParams, type DeclaredParams } from './declared-params.js';
import type { JsonSchema } from './tool-definition.js';

/**
 * The params every tool of an index declares (`declaredParams`), in index order, kept beside an index served from the
 * scan cache: what a policy's condition-key check reads for a `*` rule instead of making every tool from its cache line
 * (review Z17, Z17-5). Each name once in `names`; each tool its names' places there, with -1 first when its schema
 * lets other params through.
 */
export interface ParamLists {
  readonly names: readonly string[];
  readonly tools: ReadonlyArray<readonly number[]>;
}

/** The params of all tools at once, as a walk of every tool would gather them: names in the order the tools first declare them. */
export interface ParamsUnion {
  readonly names: readonly string[];
  readonly has: ReadonlySet<string>;
  /** whether some tool's schema lets other params through */
  readonly open: boolean;
}

/** Builds `ParamLists` one tool at a time, in index order. */
export class ParamListsBuilder {
  private readonly names: string[] = [];
  private readonly places = new Map<string, number>();
  private readonly tools: number[][] = [];
  // a summary's text of its tool's params, parsed once however many tools share it
  private readonly fromText = new Map<string, number[] | undefined>();

  /** Starts from `lists` (their tools are then those of `lists`, changed by `set`). */
  constructor(lists?: ParamLists) {
    if (!lists) return;
    lists.names.forEach((name, place) => {
      this.names.push(name);
      this.places.set(name, place);
    });
    this.tools = lists.tools.slice() as number[][];
  }

  add(declared: DeclaredParams): void {
    this.tools.push(this.listOf(declared));
  }

  /** Adds the tool a summary's `declaredText` tells of; false (nothing added) when the text is not one. */
  addText(text: string): boolean {
    let list = this.fromText.get(text);
    if (list === undefined && !this.fromText.has(text)) {
      const declared = declaredFromText(text);
      list = declared && this.listOf(declared);
      this.fromText.set(text, list);
    }
    if (list === undefined) return false;
    this.tools.push(list);
    return true;
  }

  set(at: number, declared: DeclaredParams): void {
    this.tools[at] = this.listOf(declared);
  }

  lists(): ParamLists {
    return { names: this.names, tools: this.tools };
  }

  private listOf(declared: DeclaredParams): number[] {
    const list = declared.open ? [-1] : [];
    for (const name of declared.names) {
      let place = this.places.get(name);
      if (place === undefined) {
        place = this.names.push(name) - 1;
        this.places.set(name, place);
      }
      list.push(place);
    }
    return list;
  }
}

/** The lists of tools with these schemas, in order. */
export function paramListsOf(schemas: Iterable<JsonSchema>): ParamLists {
  const builder = new ParamListsBuilder();
  for (const schema of schemas) builder.add(declaredParams(schema));
  return builder.lists();
}

const unions = new WeakMap<ParamLists, ParamsUnion>();

/** The union of the lists' params, in the order a walk of the tools in index order meets them (made once per lists). */
export function unionOf(lists: ParamLists): ParamsUnion {
  let union = unions.get(lists);
  if (union) return union;
  const has = new Set<string>();
  let open = false;
  for (const list of lists.tools) {
    for (const place of list) {
      if (place < 0) open = true;
      else has.add(lists.names[place]!);
    }
  }
  union = { names: [...has], has, open };
  unions.set(lists, union);
  return union;
}

/** The lists as the scan cache keeps them (a JSON text, parsed only when a policy asks). */
export function paramListsText(lists: ParamLists): string {
  return JSON.stringify({ names: lists.names, tools: lists.tools });
}

/** The lists a cache kept, or undefined when the text is not `paramListsText`'s of `tools` tools: the tools are then read. */
export function parseParamLists(text: unknown, tools: number): ParamLists | undefined {
  if (typeof text !== 'string') return undefined;
  let lists: unknown;
  try {
    lists = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof lists !== 'object' || lists === null) return undefined;
  const { names, tools: each } = lists as { names?: unknown; tools?: unknown };
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string') || !Array.isArray(each) || each.length !== tools) return undefined;
  const fits = (list: unknown): boolean => Array.isArray(list) && list.every((place, at) => Number.isSafeInteger(place) && place >= (at === 0 ? -1 : 0) && place < names.length);
  return each.every(fits) ? { names: names as string[], tools: each as number[][] } : undefined;
}

// the texts of params many tools share (a generated or imported registry's), one string each
const TEXTS = new Map<string, string>();
const MAX_SHARED_TEXTS = 1024;

/** One tool's params as a summary carries them across threads: a short JSON text, `[1, ...names]` when open, else `[0, ...names]`. */
export function declaredText(declared: DeclaredParams): string {
  const text = JSON.stringify([declared.open ? 1 : 0, ...declared.names]);
  const shared = TEXTS.get(text);
  if (shared !== undefined) return shared;
  if (TEXTS.size < MAX_SHARED_TEXTS) TEXTS.set(text, text);
  return text;
}

/** The `declaredText` of the tool at that place of the lists. */
export function declaredTextAt(lists: ParamLists, at: number): string {
  const list = lists.tools[at]!;
  return declaredText({ names: new Set(list.filter((place) => place >= 0).map((place) => lists.names[place]!)), open: list[0] === -1 });
}

function declaredFromText(text: string): DeclaredParams | undefined {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(list) || (list[0] !== 0 && list[0] !== 1) || !list.slice(1).every((name) => typeof name === 'string')) return undefined;
  return { names: new Set(list.slice(1) as string[]), open: list[0] === 1 };
}
