import { yamlModule } from './yaml-module.js';

/**
 * How deep a text may nest, as counted here, before `yaml` is asked to build it: far over a definition's limit
 * (MAX_DEFINITION_DEPTH, 64), which `yaml`'s document is still measured against, so no definition that limit accepts
 * is refused here; and low enough that what passes costs `yaml` little (a few thousand levels at most, as this count
 * may see one level where `yaml` builds two: `[a: [b: …]]`).
 */
export const PRECHECKED_DEPTH = 1000;

// the lexer's markers, which stand for no text of the source: a document's start, a flow collection's forced end, and
// the mark before each scalar's source
const ZERO_WIDTH = new Set(['\x02', '\x18', '\x1f']);

type Kind = 'seq' | 'map';

/**
 * The line at which `text` nests deeper than `limit` collections, as counted from `yaml`'s own lexer (review Z15-3): a
 * 1 MB definition of `- - - … 1` held the event loop ~10 s and took 0.9 GB while `yaml`'s parser and composer stacked
 * 500,000 collections, before the depth limit measured the document they built. The lexer reads quotes, comments,
 * block and multi-line scalars as `yaml` does, in one linear pass, and is stopped at the first line past the limit.
 *
 * The count is of open collections: each `[`/`{` outside a scalar, and in block context one per column of an open
 * block collection — a `-` or `?` entry, or a key before `:` — where a line's entry at column c closes every block
 * collection at a deeper column (a key at the column of a sequence written without indentation under a mapping's key
 * closes that sequence). This is at least what `yaml` builds in block context, and within a factor of two in flow
 * context; it is never more than one per column an entry starts at, so a definition nested as deep as 64 levels is
 * counted near that, never near `limit`. Undefined when it never nests past `limit`.
 */
export function nestedPast(text: string, limit = PRECHECKED_DEPTH): number | undefined {
  const { CST, Lexer } = yamlModule();
  const open: Array<{ column: number; kind: Kind }> = [];
  let flow = 0;
  let offset = 0;
  let line = 1;
  let lineStart = 0;
  let scalarNext = false;
  // where the node now being read began on its line (a key's anchor or tag, or the key itself), until its entry is known
  let nodeColumn: number | undefined;

  const entry = (column: number, kind: Kind): boolean => {
    while (open.length > 0 && open.at(-1)!.column > column) open.pop();
    const top = open.at(-1);
    if (top?.column === column && top.kind !== kind && kind === 'map') {
      // a key at a sequence's column: the sequence was one written without indentation under the mapping's key
      open.pop();
      if (open.at(-1)?.column === column && open.at(-1)!.kind === 'map') return false;
    } else if (top?.column === column && top.kind === kind) return false;
    open.push({ column, kind });
    return open.length + flow > limit;
  };

  for (const token of new Lexer().lex(text)) {
    if (ZERO_WIDTH.has(token)) {
      if (token === '\x1f') scalarNext = true;
      else if (token === '\x02') {
        open.length = 0;
        flow = 0;
      }
      continue;
    }
    const column = offset - lineStart;
    const type = scalarNext ? 'scalar' : CST.tokenType(token);
    scalarNext = false;
    offset += token.length;
    let past = false;
    switch (type) {
      case 'flow-map-start':
      case 'flow-seq-start':
        nodeColumn ??= column;
        flow += 1;
        past = open.length + flow > limit;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        flow = Math.max(0, flow - 1);
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        if (flow === 0) {
          past = entry(column, type === 'seq-item-ind' ? 'seq' : 'map');
          nodeColumn = undefined;
        }
        break;
      case 'map-value-ind':
        if (flow === 0) {
          past = entry(nodeColumn ?? column, 'map');
          nodeColumn = undefined;
        }
        break;
      case 'space':
      case 'newline':
      case 'comment':
      case 'comma':
        break;
      default:
        // a scalar's source, a quoted scalar, an alias, an anchor or a tag: a node (or a key's) begins here
        nodeColumn ??= column;
    }
    if (past) return line;
    // a token may span lines (a newline, a multi-line or block scalar): its last line starts after its last newline
    const last = token.lastIndexOf('\n');
    if (last >= 0) {
      for (let at = token.indexOf('\n'); at >= 0; at = token.indexOf('\n', at + 1)) line += 1;
      lineStart = offset - token.length + last + 1;
      // in block context a new line's first token begins a new node (a block scalar's text ends with its newline)
      if (last === token.length - 1 && flow === 0) nodeColumn = undefined;
    }
  }
  return undefined;
}
