import { LexedErrors, MAX_LEXED_ERRORS } from './lexed-errors.js';
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

/** How deep a definition's YAML may nest: a real one needs a dozen levels; ajv and `structuredClone` recurse. */
export const MAX_DEFINITION_DEPTH = 64;

/** How many values a definition may hold once its aliases are expanded (what the cache and JSON answers write out). */
export const MAX_DEFINITION_NODES = 100_000;

/**
 * How many aliases (`*name`) a text may hold before `yaml` is asked to build it (review Z20, Z20-2): `yaml` walks the
 * whole document at the first use of each anchored collection holding an alias, so K anchored lists of one alias each,
 * each used once, cost K walks of the document — 135 KB of 16,000 values took 83 s, within every other limit. A
 * definition written by hand uses a few; at 1,000, 500 such lists beside 95,000 values still cost `hldp validate` 18 s
 * against 3 s without them; 256 keeps the walks within about the cost of the values themselves.
 */
export const MAX_DEFINITION_ALIASES = 256;

/**
 * How many directive lines (`%YAML 1.2`, `%TAG ! tag:x,2026:`) a text may hold before `yaml` is asked to build it
 * (review Z21, Z21-2): a definition needs one or two; `yaml` keeps a warning for each it does not know, and 1 MiB of
 * `%X` lines cost `hldp validate` 20 s and 1.1 GB.
 */
export const MAX_DEFINITION_DIRECTIVES = 100;

/**
 * What a text goes past before `yaml` builds it, and the line where it does: for `errors`, the line of the first of
 * them (the one to fix first).
 */
export interface LexedPast {
  line: number;
  past: 'depth' | 'values' | 'aliases' | 'errors' | 'directives';
}

// a flow collection being read: whether an entry of it has begun since its last comma, and that entry is a pair; and
// since the last comma, `?` or `:`, whether a node was written (`complete`) and which properties wait for their node
interface FlowLevel {
  seq: boolean;
  entry: boolean;
  pair: boolean;
  complete: boolean;
  colon: boolean;
  question: boolean;
  anchor: boolean;
  tag: boolean;
}

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
  return lexedPast(text, limit, Infinity, Infinity, Infinity)?.line;
}

/** How many values `text` holds as {@link lexedPast} counts them (tests compare it with `yaml`'s document). */
export function lexedValues(text: string): number {
  return lex(text, Infinity, Infinity).values;
}

/**
 * Where `text` goes past what `yaml` is let build: nesting deeper than `depth` ({@link nestedPast}), or more than
 * `values` values (review Z18, Z18-3: a 660 KB definition of 330,000 values, which the fast reader leaves to `yaml`
 * past 256 KiB, cost `yaml`'s document ~10 s and ~390 MB before the limit of 100,000 measured it, and `hldp validate`
 * under a 192 MB heap died of it). One pass of `yaml`'s lexer counts both, and stops at the line where one passes.
 *
 * The values are those the limit measures on the document once read: the document itself, and each entry of a
 * sequence and value of a mapping, written or left empty (`a:`, `- `, `{x}` hold null), but not a key. Every value is
 * a place the lexer shows: a block entry's `-`, a pair's `?` or `:` (once for a pair `?` began, whose `:` begins a
 * later line), a flow collection's entry begun since its last comma, and once more a pair written as a flow
 * sequence's entry (`[a: b]` holds a mapping holding `b`). A scalar, an alias or a collection is the value of the
 * place it is written at. So for a document whose keys are texts and that uses no alias the count is the document's
 * own (test/scanner/yaml-values.property.test.ts); an alias counts one value here and its anchor's values each time
 * there, which `yaml` does not build again (an alias is its anchor's value, and each anchor is bounded to 100 uses);
 * a collection written as a key counts its values too, which `yaml` builds before it writes the key as text.
 */
export function lexedPast(text: string, depth = PRECHECKED_DEPTH, values = MAX_DEFINITION_NODES, aliases = MAX_DEFINITION_ALIASES, errors = MAX_LEXED_ERRORS, directives = MAX_DEFINITION_DIRECTIVES): LexedPast | undefined {
  const { line, past } = lex(text, depth, values, aliases, errors, directives);
  return past === undefined ? undefined : { line, past };
}

/** How many aliases `text` holds, and how many nodes (scalars, quoted scalars and aliases), as {@link lexedPast} counts them. */
export function lexedNodes(text: string): { aliases: number; nodes: number } {
  const { aliases, nodes } = lex(text, Infinity, Infinity, Infinity);
  return { aliases, nodes };
}

/** How many lines and marks of `text` `yaml` can read only as errors, as {@link LexedErrors} counts them, and the first one's line. */
export function lexedErrors(text: string): { errors: number; first: number } {
  const { errors, first } = lex(text, Infinity, Infinity, Infinity, Infinity);
  return { errors, first };
}

type Lexed = { line: number; past?: LexedPast['past']; values: number; aliases: number; nodes: number; errors: number; first: number };

function lex(text: string, limit: number, maxValues: number, maxAliases = Infinity, maxErrors = Infinity, maxDirectives = Infinity): Lexed {
  const { CST, Lexer } = yamlModule();
  // each with whether its last pair was begun with `?` and its `:` may yet come, at the start of a line
  const open: Array<{ column: number; kind: Kind; explicit?: boolean }> = [];
  const flows: FlowLevel[] = [];
  let offset = 0;
  let line = 1;
  let lineStart = 0;
  let scalarNext = false;
  // where the node now being read began on its line (a key's anchor or tag, or the key itself), until its entry is known
  let nodeColumn: number | undefined;
  // the document, and each value begun since
  let values = 1;
  // the aliases, and the nodes written as text (scalars, quoted scalars, aliases): each is a key or a value, so a text
  // of at most N values holds at most 2N + 1 of them (review Z20, Z20-9: 500,000 lines of a bare word are no value
  // the count above sees, and cost `yaml` a node and an error each — 53 s and 800 MB)
  let aliases = 0;
  let nodes = 0;
  let directives = 0;
  // whether the line's first token (after its indentation) is yet to come, in block context
  let lineFirst = true;
  // whether this token is a block scalar's text (its header came last), which begins its line with its indentation
  let blockText = false;
  // what yaml can read only as errors (review Z20, Z20-9: 200,000 lines of a bare word are within the bound on nodes
  // and cost `yaml` ~30 s of errors)
  const errors = new LexedErrors();
  const result = (past?: LexedPast['past']): Lexed => ({ line: past === 'errors' ? errors.first : line, ...(past ? { past } : {}), values, aliases, nodes, errors: errors.count, first: errors.first });

  const entry = (column: number, kind: Kind): boolean => {
    while (open.length > 0 && open.at(-1)!.column > column) open.pop();
    const top = open.at(-1);
    if (top?.column === column && top.kind !== kind && kind === 'map') {
      // a key at a sequence's column: the sequence was one written without indentation under the mapping's key
      open.pop();
      if (open.at(-1)?.column === column && open.at(-1)!.kind === 'map') return false;
    } else if (top?.column === column && top.kind === kind) return false;
    open.push({ column, kind });
    return open.length + flows.length > limit;
  };
  // something written in a flow collection: the first of its entry begins that entry, a value
  const flowEntry = (): void => {
    const level = flows.at(-1);
    if (level === undefined || level.entry) return;
    level.entry = true;
    values += 1;
  };
  // a `?` or `:` in a flow collection: in a sequence, its entry is a mapping of one pair, which holds one more value
  const flowPair = (): void => {
    flowEntry();
    const level = flows.at(-1)!;
    if (!level.seq || level.pair) return;
    level.pair = true;
    values += 1;
  };

  // in a flow collection (review Z21, Z21-3), what yaml can read only as an error: a second node in one entry or key
  // (`["a" "b"]`), a second anchor or tag of one node (`[&a &b x]`), a second `:` or `?` in one entry (`[: : :]`)
  const flowNode = (): void => {
    const level = flows.at(-1)!;
    if (level.complete) errors.flowError(line);
    level.complete = true;
    level.anchor = level.tag = false;
  };
  const flowProperty = (kind: 'anchor' | 'tag'): void => {
    const level = flows.at(-1)!;
    if (level[kind]) errors.flowError(line);
    level[kind] = true;
  };
  const flowIndicator = (kind: 'colon' | 'question'): void => {
    const level = flows.at(-1)!;
    if (level[kind] || (kind === 'question' && level.colon)) errors.flowError(line);
    level[kind] = true;
    level.complete = level.anchor = level.tag = false;
  };

  for (const token of new Lexer().lex(text)) {
    if (ZERO_WIDTH.has(token)) {
      if (token === '\x1f') scalarNext = true;
      else if (token === '\x02') {
        open.length = 0;
        flows.length = 0;
        errors.document();
      }
      continue;
    }
    const column = offset - lineStart;
    const type = scalarNext ? 'scalar' : CST.tokenType(token);
    scalarNext = false;
    offset += token.length;
    const blank = type === 'space' || type === 'newline' || type === 'comment';
    // in block context, and no block scalar's text
    const block = flows.length === 0 && !(blockText && !blank);
    // the first token of its line, in block context
    const first = lineFirst && !blank && flows.length === 0 && !blockText;
    if (!blank) {
      lineFirst = false;
      blockText = type === 'block-scalar-header';
    }
    if (first) errors.lineBegins(column, type === 'seq-item-ind' || type === 'map-value-ind');
    let past = false;
    switch (type) {
      case 'flow-map-start':
      case 'flow-seq-start':
        nodeColumn ??= column;
        if (block) errors.node(line);
        else flowNode();
        flowEntry();
        flows.push({ seq: type === 'flow-seq-start', entry: false, pair: false, complete: false, colon: false, question: false, anchor: false, tag: false });
        past = open.length + flows.length > limit;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        if (block) errors.strayEnd(line);
        flows.pop();
        break;
      case 'comma': {
        const level = flows.at(-1);
        if (level === undefined) break;
        // an entry left empty (`[,`, `a,,`): an error of yaml's each (review Z21, Z21-3: 1 MiB of commas, 37 s and 2.7 GB)
        if (!level.entry) errors.flowError(line);
        Object.assign(level, { entry: false, pair: false, complete: false, colon: false, question: false, anchor: false, tag: false });
        break;
      }
      case 'seq-item-ind':
      case 'explicit-key-ind':
        if (flows.length > 0) {
          if (type === 'explicit-key-ind') {
            flowIndicator('question');
            flowPair();
          }
          break;
        }
        values += 1;
        errors.indicator(false, type === 'explicit-key-ind' ? column : undefined);
        past = entry(column, type === 'seq-item-ind' ? 'seq' : 'map');
        // the mapping at this column (entry leaves it on top) has a pair whose `:` may come
        if (type === 'explicit-key-ind') open.at(-1)!.explicit = true;
        nodeColumn = undefined;
        break;
      case 'map-value-ind':
        if (flows.length > 0) {
          flowIndicator('colon');
          flowPair();
          break;
        }
        errors.indicator(true);
        if (first) {
          // a `:` beginning a line is the value of the last pair of the mapping it is in, if `?` began it and it has
          // none yet (that pair is counted), else a pair of its own, with no key
          while (open.length > 0 && open.at(-1)!.column > column) open.pop();
          const top = open.at(-1);
          if (top?.kind === 'map' && top.explicit) top.explicit = false;
          else values += 1;
          past = entry(column, 'map');
        } else {
          values += 1;
          past = entry(nodeColumn ?? column, 'map');
          // a pair of its own, after the key begun at nodeColumn: the mapping's last pair is no longer one begun with `?`
          open.at(-1)!.explicit = false;
        }
        nodeColumn = undefined;
        break;
      case 'newline':
        if (block) errors.lineEnd(line);
        break;
      case 'space':
      case 'comment':
        break;
      case 'doc-start':
      case 'doc-end':
        errors.document();
        break;
      case 'directive-line':
        // `%YAML`, `%TAG`: a definition needs a couple; yaml keeps a warning for each it does not know (review Z21, Z21-2)
        directives += 1;
        break;
      default:
        // a scalar's source, a quoted scalar, an alias, an anchor or a tag: a node (or a key's) begins here
        nodeColumn ??= column;
        flowEntry();
        if (type === 'alias') aliases += 1;
        if (type === 'scalar' || type === 'alias' || type === 'single-quoted-scalar' || type === 'double-quoted-scalar') nodes += 1;
        if (flows.length > 0 && !blockText) {
          if (type === 'anchor' || type === 'tag') flowProperty(type);
          else if (type === 'scalar' || type === 'alias' || type === 'single-quoted-scalar' || type === 'double-quoted-scalar') flowNode();
        }
        if (!block) break;
        if (type === 'anchor' || type === 'tag') errors.property(line, type === 'anchor');
        else if (type === 'scalar' || type === 'alias' || type === 'single-quoted-scalar' || type === 'double-quoted-scalar' || type === 'block-scalar-header') errors.node(line);
    }
    if (past) return result('depth');
    if (values > maxValues || nodes > 2 * maxValues + 1) return result('values');
    if (aliases > maxAliases) return result('aliases');
    if (errors.count > maxErrors) return result('errors');
    if (directives > maxDirectives) return result('directives');
    // a token may span lines (a newline, a multi-line or block scalar): its last line starts after its last newline
    const last = token.lastIndexOf('\n');
    if (last >= 0) {
      for (let at = token.indexOf('\n'); at >= 0; at = token.indexOf('\n', at + 1)) line += 1;
      lineStart = offset - token.length + last + 1;
      lineFirst = true;
      // in block context a new line's first token begins a new node (a block scalar's text ends with its newline)
      if (last === token.length - 1 && flows.length === 0) nodeColumn = undefined;
    }
  }
  if (flows.length === 0) errors.end(line);
  return result(errors.count > maxErrors ? 'errors' : undefined);
}
