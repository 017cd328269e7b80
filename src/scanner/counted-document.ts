import type { Document, DocumentOptions, LineCounter, ParseOptions, SchemaOptions } from 'yaml';
import { YamlLocator } from './yaml-locator.js';
import { yamlModule } from './yaml-module.js';
import { YAML_OPTIONS } from './yaml-syntax-message.js';
import { MAX_LEXED_ERRORS } from './lexed-errors.js';
import { lexedPast, MAX_DEFINITION_ALIASES, MAX_DEFINITION_DEPTH, MAX_DEFINITION_DIRECTIVES, MAX_DEFINITION_NODES, PRECHECKED_DEPTH, type LexedPast } from './yaml-nesting.js';

/** Why a text nested too deep for `yaml` to be let build it. */
export const NESTED_TOO_DEEP = `YAML nested more than ${MAX_DEFINITION_DEPTH} levels deep; flatten it`;

/** Why a text held too many values for `yaml` to be let build it. */
export const TOO_MANY_VALUES = `YAML holds more than ${MAX_DEFINITION_NODES} values once its aliases are expanded; use anchors less, or write less`;

/** Why a text used too many aliases for `yaml` to be let build it (each may cost `yaml` a walk of the document: review Z20-2). */
export const TOO_MANY_ALIASES = `YAML uses more than ${MAX_DEFINITION_ALIASES} aliases (*name); write the values out, or use fewer anchors`;

/** Why a text was refused for what `yaml` could read only as errors (each costs it a node and an error: review Z20-9). */
export const TOO_MANY_ERRORS = `YAML holds more than ${MAX_LEXED_ERRORS} lines or marks that are no key, value or entry (a key without ':', a stray ']' or '}', a second node, anchor or tag, an empty entry or a second ':' in [ ] or { }), the first at this line; fix them`;

/** Why a text was refused for its directive lines (each a warning of `yaml`'s: review Z21-2). */
export const TOO_MANY_DIRECTIVES = `YAML holds more than ${MAX_DEFINITION_DIRECTIVES} directive lines (%YAML, %TAG, ...); a definition needs one or two: remove the rest`;

/** A text `yaml` was let build: its document, the line counter it was read with, and a locator over both. */
export interface CountedDocument {
  document: Document;
  lineCounter: LineCounter;
  locator: YamlLocator;
}

/** A text refused before `yaml` built it: the line where the lexer's count went past, and why (as the scan says it). */
export interface RefusedText extends LexedPast {
  message: string;
}

type YamlOptions = ParseOptions & DocumentOptions & SchemaOptions;

/**
 * `yaml`'s document of a text we did not write (a definition, its front matter, a config file, an existing TOOL.hdlp
 * `import-mcp --force` refreshes, a word of one), once its values and nesting have been counted from `yaml`'s lexer
 * ({@link lexedPast}), or the line where they go past what `yaml` is let build: 100,000 values, or the depth a
 * definition's limit (64) is far under, 256 aliases, or 100 lines and marks `yaml` can read only as errors. Every
 * such parse goes through here, so no reader is left that builds a 660 KB text of 330,000 values whole (~10 s of CPU,
 * ~400 MB-1.1 GB) only to find it too large, or none at all (a config file: review Z18, Z18-3's follow-up, sig27). `options` are `yaml`'s, over the scan's own (`YAML_OPTIONS`).
 */
export function countedDocument(text: string, options: YamlOptions = {}): CountedDocument | { refused: RefusedText } {
  const past = lexedPast(text, PRECHECKED_DEPTH, MAX_DEFINITION_NODES);
  if (past !== undefined) return { refused: { ...past, message: { depth: NESTED_TOO_DEEP, values: TOO_MANY_VALUES, aliases: TOO_MANY_ALIASES, errors: TOO_MANY_ERRORS, directives: TOO_MANY_DIRECTIVES }[past.past] } };
  const { LineCounter, parseDocument } = yamlModule();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { ...YAML_OPTIONS, ...options, lineCounter }) as Document;
  return { document, lineCounter, locator: new YamlLocator(document, lineCounter, text) };
}
