import type { Document } from 'yaml';
import { yamlModule } from './yaml-module.js';

/** A `- ` item YAML folded into the plain value written above it: where its `-` is, and what to say. */
export interface FoldedListItem {
  offset: number;
  message: string;
}

// a continuation line of a plain value that starts with '-' and a space (or ends there): what an author writes as a list item
const DASH_LINE = /\n[ \t]*(-)(?=[ \t]|\n|$)/;

const quoted = (text: string, limit = 60): string => `'${text.length > limit ? `${text.slice(0, limit - 1)}…` : text}'`;

/**
 * A `- ` item indented further than the item (or key) above it is no item: YAML reads its line as the continuation of
 * the plain value above, joined with a space, so `argv:` holds `"echo - hi"` and the call fails only at run time
 * (review userZ10, U10-12). Each plain value whose source spans lines, one of which starts with `- `, is told once,
 * at that `-`. Only `yaml`'s document is asked: the fast reader gives up on every multi-line plain value.
 */
export function foldedListItems(document: Document, text: string): FoldedListItem[] {
  const { isScalar, visit } = yamlModule();
  const found: FoldedListItem[] = [];
  visit(document, {
    Scalar(_key, node) {
      if (!isScalar(node) || node.type !== 'PLAIN' || !node.range) return;
      const written = text.slice(node.range[0], node.range[1]);
      const dash = DASH_LINE.exec(written);
      if (!dash) return;
      const offset = node.range[0] + dash.index + dash[0].length - 1;
      const line = text.slice(offset, (text.indexOf('\n', offset) + 1 || text.length + 1) - 1).trimEnd();
      found.push({
        offset,
        message: `${quoted(line)} is indented further than the line above it, so YAML joined it into the value above (${quoted(String(node.value))}), not a list item of its own: write each item of a list on its own line, its '- ' at the column of the others (or, if the text is meant, quote the whole value)`,
      });
    },
  });
  return found;
}
