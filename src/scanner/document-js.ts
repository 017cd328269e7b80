import type { Alias, Document } from 'yaml';
import { yamlModule } from './yaml-module.js';

/** `yaml`'s own default bound on an anchor's uses, weighted by the aliases inside it (`Document#toJS`'s `maxAliasCount`). */
export const MAX_ALIAS_COUNT = 100;

// what `yaml` keeps of an anchored node while it builds the document: its uses, and the aliases inside it once counted
interface AnchorData {
  count: number;
  aliasCount?: number;
}

/**
 * `document.toJS()` of a text we did not write, refused (a `ReferenceError`, as `yaml` throws it) where `yaml`'s own
 * alias count refuses it, but counted here in one pass (review Z21, Z21-1). `yaml` counts an anchor's aliases afresh
 * at each use while that count is 0 — an anchored list of aliases to empty lists — and resolves each alias inside it
 * by a walk of the whole document, so `x-L: &L [*e ×128]` used 127 times cost 16,000 walks: 33 KB took `hldp validate`
 * 53 s. Here each alias is resolved once, as `yaml` resolves it (the last anchor of its name before it), and each
 * anchor's aliases counted once: a count of 0 stays 0 (an anchor whose nodes are all empty collections or aliases of
 * such), so counting it again gives what `yaml` gives. `yaml` then builds the document with its count off; what the
 * expansion costs is bounded by the callers' own measure of the value built (nodes, bytes, depth per reference).
 */
export function documentJS(document: Document, maxAliasCount = MAX_ALIAS_COUNT): unknown {
  if (aliasCountPast(document, maxAliasCount)) throw new ReferenceError('Excessive alias count indicates a resource exhaustion attack');
  return document.toJS({ maxAliasCount: -1 });
}

function aliasCountPast(document: Document, maxAliasCount: number): boolean {
  const { isAlias, isCollection, isPair, visit } = yamlModule();
  const anchored = new Map<string, unknown>();
  const sources = new Map<Alias, unknown>();
  const data = new Map<unknown, AnchorData>();
  // yaml's getAliasCount: the most any alias inside `root` weighs (its anchor's uses times its aliases), a node of no
  // alias 1, an empty collection 0
  const aliasCount = (root: unknown): number => {
    let most = 0;
    const stack = [root];
    while (stack.length > 0) {
      const node = stack.pop();
      if (isAlias(node)) {
        const anchor = data.get(sources.get(node));
        most = Math.max(most, anchor ? anchor.count * (anchor.aliasCount ?? 0) : 0);
      } else if (isCollection(node)) for (const item of node.items as unknown[]) stack.push(item);
      else if (isPair(node)) stack.push(node.key, node.value);
      else most = Math.max(most, 1);
    }
    return most;
  };
  let past = false;
  visit(document, {
    Node(_key, node) {
      if (isAlias(node)) {
        const source = anchored.get(node.source);
        sources.set(node, source);
        if (source === undefined) return undefined;
        let anchor = data.get(source);
        if (anchor === undefined) data.set(source, (anchor = { count: 1 }));
        anchor.count += 1;
        anchor.aliasCount ??= aliasCount(source);
        if (anchor.count * anchor.aliasCount > maxAliasCount) {
          past = true;
          return visit.BREAK;
        }
      } else if (node.anchor) {
        anchored.set(node.anchor, node);
        data.set(node, { count: 1 });
      }
      return undefined;
    },
  });
  return past;
}
