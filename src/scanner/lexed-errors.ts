/**
 * How many lines or marks a text may hold that `yaml` can read only as errors, before it is asked to build the text
 * (review Z20, Z20-9): a key without its `:`, a stray `]` or `}`, a second node or property. Each costs `yaml` a node
 * and an error, about twice what a value costs; 200,000 lines of a bare word, within the bound on nodes, took ~30 s.
 * `yaml` reports such a text's first errors as they are up to this many; the scanner shows 10 of them at most.
 */
export const MAX_LEXED_ERRORS = 100;

/**
 * The lines and marks of a text, in block context, that `yaml` can read only as errors, seen from its lexer's tokens
 * (`yaml-nesting.ts` feeds them). Each counted is one `yaml` reports; it may report more (a mis-indented pair, a key
 * split over lines, ...): those are left to it, as their values are counted and bounded anyway. Counted:
 * - a line whose first node is no value awaited (the document's, or that of a `-`, `?` or `:` whose line ended before
 *   it) and gets no `:` on that line, nor as the next token of a later line (`yaml` reads `a` then ` : b` as a pair):
 *   a key without its value ("Implicit map keys need to be followed by map values") or a node after a complete one
 *   (`key: "a"` and then `  b`);
 * - a node after a complete node on its line (`key: "a" b`, `[] []`), and a `]` or `}` no flow collection opened;
 * - a second anchor or tag of one node, on its line (`&a &b x`) or on a line of properties alone after another's
 *   (`&a`, then `&b`, then a node or a key: `&a` then `&b key: v` is a mapping's anchor and its key's, and right).
 * None on a line indented past a `?` (an explicit key) its key may be part of: `yaml` reads `? "a"` and then lines of
 * ` b`, ` ]` or ` k: "a" b` as the key `a`, without a word.
 */
export class LexedErrors {
  count = 0;
  /** the line of the first counted */
  first = 0;
  // whether a value is awaited: the document's, or that of an indicator (`-`, `?`, `:`) with no node after it yet
  private awaited = true;
  // whether a node was written on this line since its last indicator
  private complete = false;
  // the line of a node begun where no value was awaited: a key, if its `:` follows on its line
  private keyLine: number | undefined;
  // the line of such a node whose line ended without its `:`: a key still, if the next token is its `:`
  private openKey: number | undefined;
  // the properties written since the last node or indicator: on this line, and on earlier lines of properties alone
  private lineAnchor = false;
  private lineTag = false;
  private heldAnchor = false;
  private heldTag = false;
  // the columns of the `?` whose keys the lines now read may be part of
  private explicit: number[] = [];

  /** A document begins (`---`, or the lexer's own start of one): its value is awaited. */
  document(): void {
    this.openKey = undefined;
    this.awaited = true;
    this.complete = false;
    this.keyLine = undefined;
    this.lineAnchor = this.lineTag = this.heldAnchor = this.heldTag = false;
    this.explicit.length = 0;
  }

  /**
   * A line's first token in block context, at `column`, an `indicator` (`-` or `:`) or not: the keys of `?` past that
   * column are over, and those at it unless the line begins with a `-` or `:` (`yaml` reads `? x` and then `-` lines
   * as the key's).
   */
  lineBegins(column: number, indicator: boolean): void {
    while (this.explicit.length > 0 && (this.explicit.at(-1)! > column || (this.explicit.at(-1)! === column && !indicator))) this.explicit.pop();
  }

  /** A `-`, `?` (at `explicit`, its column) or `:` (`value`) in block context: a value is awaited, and a key before a `:` has its value. */
  indicator(value: boolean, explicit?: number): void {
    this.next(value);
    if (explicit !== undefined) this.explicit.push(explicit);
    this.awaited = true;
    this.complete = false;
    this.keyLine = undefined;
    this.clearProperties();
  }

  /** A scalar, a quoted scalar, an alias, a block scalar's header or a flow collection's start, in block context. */
  node(line: number): void {
    this.next();
    if (this.complete) this.error(line);
    else if (!this.awaited && this.explicit.length === 0) this.keyLine ??= line;
    this.awaited = false;
    this.complete = true;
    this.clearProperties();
  }

  /** An anchor or a tag in block context. */
  property(line: number, anchor: boolean): void {
    this.next();
    if (anchor ? this.lineAnchor : this.lineTag) this.error(line);
    if (anchor) this.lineAnchor = true;
    else this.lineTag = true;
  }

  /** A `]` or `}` in block context: no flow collection is open. */
  strayEnd(line: number): void {
    this.next();
    this.error(line);
  }

  /**
   * A mark in a flow collection that `yaml` can read only as an error (review Z21, Z21-3): an empty entry (`[,`,
   * `a,,`), a second node, anchor or tag, `:` or `?` of one entry — none in a key `?` began, as above.
   */
  flowError(line: number): void {
    this.error(line);
  }

  /** The end of a line in block context (a newline token, or the text's end). */
  lineEnd(line: number): void {
    this.openKey ??= this.keyLine;
    this.keyLine = undefined;
    this.complete = false;
    // properties left on this line wait for their node on a later one, with those of earlier lines
    if ((this.lineAnchor && this.heldAnchor) || (this.lineTag && this.heldTag)) this.error(line);
    this.heldAnchor ||= this.lineAnchor;
    this.heldTag ||= this.lineTag;
    this.lineAnchor = this.lineTag = false;
  }

  /** The text's end: a key left open has no value. */
  end(line: number): void {
    this.lineEnd(line);
    this.next();
  }

  // a token after a key left open on an earlier line: the key has its value if the token is its `:`
  private next(value = false): void {
    if (this.openKey !== undefined && !value) this.error(this.openKey);
    this.openKey = undefined;
  }

  private clearProperties(): void {
    this.lineAnchor = this.lineTag = this.heldAnchor = this.heldTag = false;
  }

  private error(line: number): void {
    if (this.explicit.length > 0) return;
    if (this.count === 0) this.first = line;
    this.count += 1;
  }
}
