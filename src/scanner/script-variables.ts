/** Where a `$HLDP_PARAM_…` reference sits in a script, which decides whether `sh` expands it there. */
export type ReferenceContext =
  /** unquoted, in double quotes, in `$(…)`, backticks or arithmetic: `sh` expands it */
  | 'expanded'
  /** in an unquoted here-document (`<<EOF`): `sh` expands it */
  | 'heredoc'
  /** in single quotes or a quoted here-document (`<<'EOF'`): literal here, though a program it is handed to (`sh -c '…'`) may expand it */
  | 'literal';

/** One `$HLDP_PARAM_X` or `${HLDP_PARAM_X…}` (or a bare name in `$((…))`) in a script. */
export interface ScriptVariableReference {
  /** the variable's name, `HLDP_PARAM_X` */
  name: string;
  /** offset of the name in the script */
  index: number;
  context: ReferenceContext;
  /** `${X:-…}`, `${X-…}`, `${X:+…}`, `${X+…}`: read with a default or an alternative, an optional switch (review userZ2, U9) */
  defaulted?: boolean;
}

/** What {@link findScriptVariables} read: every reference outside comments, the names the script sets itself, and whether it read the script to its end in a clean state. */
export interface ScriptVariables {
  references: ScriptVariableReference[];
  /** `HLDP_PARAM_X=…`, `read HLDP_PARAM_X`, `for HLDP_PARAM_X in`, `getopts … X`, `${HLDP_PARAM_X:=…}`: the script's own variables (of those it notes) */
  assigned: Set<string>;
  /** false when a quote, substitution or here-document was left open: the contexts are then guesses */
  clean: boolean;
}

const PREFIX = 'HLDP_PARAM_';
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
// characters after which a `#` starts a comment (a word's start)
const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const ASSIGNMENTS = [
  /(?:^|[\s;&|(`])(?:export\s+|readonly\s+|local\s+)?([A-Za-z_]\w*)\+?=/g,
  /(?:^|[\s;&|(`])read\b([^;&|\n]*)/g,
  /(?:^|[\s;&|(`])for\s+([A-Za-z_]\w*)/g,
  /(?:^|[\s;&|(`])getopts\s+\S+\s+([A-Za-z_]\w*)/g,
  /\$\{([A-Za-z_]\w*):?=/g,
];

/**
 * The `HLDP_PARAM_` variables a POSIX `sh -c` script reads, with where each sits: a small lexer of quotes, escapes,
 * comments, `$(…)`, backticks, `$((…))`, `${…}` and here-documents. It does not run or fully parse the shell; a
 * script it cannot follow to a clean end says so (`clean: false`) so that a caller only warns.
 */
export function findScriptVariables(script: string, names: ReadonlySet<string> = new Set()): ScriptVariables {
  const lexer = new ScriptLexer(script, names);
  lexer.commands(undefined);
  const assigned = new Set<string>();
  for (const pattern of ASSIGNMENTS) {
    for (const match of script.matchAll(pattern)) {
      for (const word of match[1]!.trim().split(/\s+/)) if (word.startsWith(PREFIX) || names.has(word)) assigned.add(word);
    }
  }
  return { references: lexer.references, assigned, clean: lexer.clean && lexer.pending.length === 0 };
}

interface Heredoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
}

/** Nesting of quotes and substitutions followed, at most: past it the script is beyond this reader (and the stack). */
const MAX_NESTING = 64;

class ScriptLexer {
  index = 0;
  clean = true;
  private nesting = 0;
  readonly references: ScriptVariableReference[] = [];
  readonly pending: Heredoc[] = [];

  constructor(
    private readonly text: string,
    /** other names to note, besides `HLDP_PARAM_` ones (a parameter's own name, read by mistake: review userZ7, F12) */
    private readonly names: ReadonlySet<string>,
  ) {}

  /** Commands up to `end` (`)` of `$(…)`, a backtick) or the end of the text. */
  commands(end: ')' | '`' | undefined): void {
    const text = this.text;
    let depth = 0;
    while (this.index < text.length) {
      const character = text[this.index]!;
      if (end === ')' && character === ')' && depth === 0) return void (this.index += 1);
      if (end === '`' && character === '`') return void (this.index += 1);
      const previous = this.index === 0 ? '\n' : text[this.index - 1]!;
      if (character === '\\') this.index += 2;
      else if (character === "'") this.singleQuoted();
      else if (character === '"') this.nested(() => this.doubleQuoted());
      else if (character === '`') {
        this.index += 1;
        this.nested(() => this.commands('`'));
      } else if (character === '$') this.dollar();
      else if (character === '#' && WORD_BREAK.has(previous)) this.skipComment();
      else if (character === '<' && text.startsWith('<<<', this.index)) this.index += 3;
      else if (character === '<' && text[this.index + 1] === '<') this.heredocOperator();
      else if (character === '\n') {
        this.index += 1;
        this.heredocBodies();
      } else {
        if (character === '(') depth += 1;
        if (character === ')') depth -= 1;
        this.index += 1;
      }
    }
    if (end !== undefined) this.clean = false;
  }

  private singleQuoted(): void {
    const close = this.text.indexOf("'", this.index + 1);
    const stop = close < 0 ? this.text.length : close;
    this.literalReferences(this.index + 1, stop);
    if (close < 0) this.clean = false;
    this.index = stop + 1;
  }

  private doubleQuoted(): void {
    const text = this.text;
    this.index += 1;
    while (this.index < text.length) {
      const character = text[this.index]!;
      if (character === '"') return void (this.index += 1);
      if (character === '\\') this.index += 2;
      else if (character === '$') this.dollar();
      else if (character === '`') {
        this.index += 1;
        this.nested(() => this.commands('`'));
      } else this.index += 1;
    }
    this.clean = false;
  }

  /** At a `$`: a reference, `${…}`, `$(…)` or `$((…))`, or a `$` of something else. */
  private dollar(context: ReferenceContext = 'expanded'): void {
    this.nested(() => this.expansion(context));
  }

  // one level deeper, or, past MAX_NESTING, the rest of the script left unread and the reading not clean
  private nested(read: () => void): void {
    if (this.nesting >= MAX_NESTING) {
      this.clean = false;
      this.index = this.text.length;
      return;
    }
    this.nesting += 1;
    try {
      read();
    } finally {
      this.nesting -= 1;
    }
  }

  private expansion(context: ReferenceContext): void {
    const text = this.text;
    const next = text[this.index + 1];
    if (next === '{') {
      this.index += 2;
      if (text[this.index] === '#' && text[this.index + 1] !== '}') this.index += 1;
      const before = this.references.length;
      this.reference(context);
      if (this.references.length > before && /^:?[-+=]/.test(text.slice(this.index, this.index + 2))) this.references.at(-1)!.defaulted = true;
      this.braceWord(context);
    } else if (next === '(' && text[this.index + 2] === '(') {
      this.index += 3;
      this.arithmetic(context);
    } else if (next === '(') {
      this.index += 2;
      this.commands(')');
    } else if (next === '$') {
      // `$$` is the shell's PID: a name right after it is text (`$$HLDP_PARAM_X`), not a variable
      this.index += 2;
    } else {
      this.index += 1;
      this.reference(context);
    }
  }

  /** A name at the current offset, noted when it is an `HLDP_PARAM_` one or one of {@link names}. */
  private reference(context: ReferenceContext): void {
    NAME.lastIndex = this.index;
    const name = NAME.exec(this.text)?.[0];
    if (name === undefined) return;
    if ((name.startsWith(PREFIX) && name.length > PREFIX.length) || this.names.has(name)) this.references.push({ name, index: this.index, context });
    this.index += name.length;
  }

  /** The rest of `${name…}` up to its `}`: a default or pattern word may hold quotes and expansions. */
  private braceWord(context: ReferenceContext): void {
    const text = this.text;
    while (this.index < text.length) {
      const character = text[this.index]!;
      if (character === '}') return void (this.index += 1);
      if (character === '\\') this.index += 2;
      else if (character === '$') this.dollar(context);
      else if (character === "'" && context === 'expanded') this.singleQuoted();
      else if (character === '"') this.nested(() => this.doubleQuoted());
      else this.index += 1;
    }
    this.clean = false;
  }

  /** `$((…))`: `$name` and bare names alike are read from the environment. */
  private arithmetic(context: ReferenceContext): void {
    const text = this.text;
    let depth = 0;
    while (this.index < text.length) {
      const character = text[this.index]!;
      if (character === ')' && depth === 0 && text[this.index + 1] === ')') return void (this.index += 2);
      if (character === '$') this.dollar(context);
      else if (/[A-Za-z_]/.test(character) && !/[A-Za-z0-9_]/.test(text[this.index - 1] ?? '')) this.reference(context);
      else {
        if (character === '(') depth += 1;
        if (character === ')') depth -= 1;
        this.index += 1;
      }
    }
    this.clean = false;
  }

  private skipComment(): void {
    const newline = this.text.indexOf('\n', this.index);
    this.index = newline < 0 ? this.text.length : newline;
  }

  /** `<<WORD` or `<<-WORD`: the body starts at the next line. */
  private heredocOperator(): void {
    const text = this.text;
    this.index += 2;
    const stripTabs = text[this.index] === '-';
    if (stripTabs) this.index += 1;
    while (text[this.index] === ' ' || text[this.index] === '\t') this.index += 1;
    const start = this.index;
    while (this.index < text.length && !/[\s;&|()<>]/.test(text[this.index]!)) {
      const character = text[this.index]!;
      if (character === "'" || character === '"') {
        const close = text.indexOf(character, this.index + 1);
        if (close < 0) return void (this.clean = false);
        this.index = close + 1;
      } else this.index += character === '\\' ? 2 : 1;
    }
    const word = text.slice(start, this.index);
    if (word === '') return void (this.clean = false);
    this.pending.push({ delimiter: word.replace(/\\(.)/g, '$1').replace(/["']/g, ''), quoted: /["'\\]/.test(word), stripTabs });
  }

  /** After a newline: the bodies of the here-documents its line opened, in order. */
  private heredocBodies(): void {
    const text = this.text;
    for (const heredoc of this.pending.splice(0)) {
      for (;;) {
        if (this.index >= text.length) return void (this.clean = false);
        const newline = text.indexOf('\n', this.index);
        const end = newline < 0 ? text.length : newline;
        const line = text.slice(this.index, end);
        if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) {
          this.index = Math.min(text.length, end + 1);
          break;
        }
        if (heredoc.quoted) this.literalReferences(this.index, end);
        else this.expandedLine(end);
        this.index = Math.min(text.length, end + 1);
      }
    }
  }

  /** One line of an unquoted here-document: `$` and backslash work as in double quotes, quotes are plain text. */
  private expandedLine(end: number): void {
    const text = this.text;
    while (this.index < end) {
      const character = text[this.index]!;
      if (character === '\\') this.index += 2;
      else if (character === '$') {
        const before = this.index;
        this.dollar('heredoc');
        // a `$(…)` spanning lines is beyond this reader: the rest is a guess
        if (this.index > end) {
          this.clean = false;
          this.index = Math.max(before + 1, end);
        }
      } else this.index += 1;
    }
  }

  /** References written in text `sh` does not expand here. */
  private literalReferences(from: number, to: number): void {
    // `$$` (the PID) first, so the name after it is not read as a variable
    const pattern = /\$\$|\$\{?#?(HLDP_PARAM_[A-Za-z0-9_]+)/g;
    for (const match of this.text.slice(from, to).matchAll(pattern)) {
      if (match[1] === undefined) continue;
      this.references.push({ name: match[1]!, index: from + match.index + match[0].length - match[1]!.length, context: 'literal' });
    }
  }
}
