import { findTool, revealHidden, type BrokenMatch, type Diagnostic, type MatchResult, type ToolIndex } from '../core/index.js';
import { analyzeWords } from './analyze.js';
import { glossesOf } from './lexicon.js';
import { missingToolSuggestion } from './suggestion.js';

/** The most broken tools an answer names. */
export const MAX_BROKEN_MATCHES = 3;
// a repository with thousands of broken files is read for its first this many
const MAX_BROKEN_FILES = 2000;
// what of a folder name and of an error an answer carries: the repository's text is its authors', not ours to bound
const MAX_NAME_CHARACTERS = 128;
const MAX_ERROR_CHARACTERS = 400;
// the request is read as the lexical stage reads it: its first words, not a pasted document in full
const MAX_REQUEST_WORDS = 32;
const MAX_REQUEST_CHARACTERS = 4096;

const TOOL_FILE = /^tools\/([^/]+)\/TOOL\.hdlp$/;

/**
 * The tools whose `TOOL.hdlp` is broken (not served) and whose folder name fits `intent`, best first: at least half
 * of the folder name's words (`send-email`: send, email) are words of the request, or English senses of its Chinese
 * words. A broken definition cannot be trusted for its `intent` or `examples` (a YAML syntax error leaves none), so
 * its folder name, which is its `name`, is all that is matched. Files of toolsets, skills and policies are not tools.
 */
export function brokenMatches(index: ToolIndex, intent: string): BrokenMatch[] {
  const folders = brokenFolders(index);
  if (folders.length === 0) return [];
  const requestTerms = termsOfRequest(intent);
  const fitting: { match: BrokenMatch; share: number }[] = [];
  for (const folder of folders) {
    const matched = folder.terms.filter((term) => requestTerms.has(term)).length;
    if (matched === 0 || matched * 2 < folder.terms.length) continue;
    fitting.push({ match: folder.match, share: matched / folder.terms.length });
  }
  return fitting
    .sort((a, b) => b.share - a.share || (a.match.name < b.match.name ? -1 : a.match.name > b.match.name ? 1 : 0))
    .slice(0, MAX_BROKEN_MATCHES)
    // copies: what an answer carries is its own, never the index's kept entry
    .map(({ match }) => ({ ...match }));
}

/**
 * `result` with the broken tools that fit its request, when it is `found: false` or `low`: a `found: false` answer's
 * suggestion then says to fix the first rather than write a new tool. A confident answer is left as it is.
 */
export function withBrokenMatches(result: MatchResult, index: ToolIndex, intent: string): MatchResult {
  if (result.found && result.confidence === 'high') return result;
  const broken = brokenMatches(index, intent);
  if (broken.length === 0) return result;
  if (result.found) return { ...result, broken };
  return { ...result, suggestion: brokenToolSuggestion(broken, result.suggestion), broken };
}

/** What a `found: false` answer with broken tools that fit says: fix the first, and write a new one only if none fits. */
export function brokenToolSuggestion(broken: readonly BrokenMatch[], otherwise: string = missingToolSuggestion('')): string {
  const [first, ...others] = broken;
  const also = others.length === 0 ? '' : ` (also broken, and named like the request: ${others.map((other) => `'${other.name}' at ${other.path}`).join(', ')})`;
  return `the tool '${first!.name}' at ${first!.path} would fit, but its definition is broken, so it is not served: ${first!.error}${also}; ` +
    `fix it rather than writing a new one (hldp validate ${first!.path}, commit, push, rescan); only if it is not the tool for this: ${otherwise}`;
}

// a broken folder as requests are matched against it: its name's distinct terms, and what an answer says of it
interface BrokenFolder {
  terms: string[];
  match: BrokenMatch;
}

// an index never changes once built: its broken folders are read once, at its first request that needs them
const foldersOf = new WeakMap<ToolIndex, BrokenFolder[]>();

function brokenFolders(index: ToolIndex): BrokenFolder[] {
  let folders = foldersOf.get(index);
  if (folders === undefined) {
    folders = [];
    for (const [name, diagnostics] of brokenToolFiles(index)) {
      const terms = [...new Set(analyzeWords(name.slice(0, MAX_NAME_CHARACTERS)).map(({ terms: [first] }) => first!))];
      if (terms.length > 0) folders.push({ terms, match: brokenMatch(name, diagnostics) });
    }
    foldersOf.set(index, folders);
  }
  return folders;
}

// the broken tool files of the index, by folder name, each with its errors in the order found
function brokenToolFiles(index: ToolIndex): Map<string, Diagnostic[]> {
  const files = new Map<string, Diagnostic[]>();
  for (const diagnostic of index.errors) {
    const name = TOOL_FILE.exec(diagnostic.file)?.[1];
    if (name === undefined) continue;
    let list = files.get(name);
    if (list === undefined) {
      if (files.size === MAX_BROKEN_FILES) continue;
      // a folder whose name a served tool has (a case twin, a name claimed twice) is that tool's, which the matcher ranks
      if (findTool(index, name) !== undefined) continue;
      files.set(name, (list = []));
    }
    list.push(diagnostic);
  }
  return files;
}

// the request's terms: each word's stems, and a Chinese word's English senses (as far as the dictionary is read)
function termsOfRequest(intent: string): Set<string> {
  const terms = new Set<string>();
  for (const { word, terms: wordTerms } of analyzeWords(intent.slice(0, MAX_REQUEST_CHARACTERS), MAX_REQUEST_WORDS)) {
    for (const term of wordTerms) terms.add(term);
    for (const sense of glossesOf(word).senses) for (const term of sense) terms.add(term);
  }
  return terms;
}

function brokenMatch(name: string, diagnostics: readonly Diagnostic[]): BrokenMatch {
  const first = diagnostics[0]!;
  const more = diagnostics.length > 1 ? ` (and ${diagnostics.length - 1} more)` : '';
  const error = `${first.file}:${first.line}:${first.column}: ${first.message}`;
  return { name: plain(name, MAX_NAME_CHARACTERS), path: plain(first.file, MAX_NAME_CHARACTERS + 16), error: plain(error, MAX_ERROR_CHARACTERS) + more };
}

// one line a person or a model reads as it is: controls, line feeds and hidden characters written as their escapes, cut
function plain(text: string, most: number): string {
  const cut = [...text].length > most ? `${[...text].slice(0, most).join('')}…` : text;
  return revealHidden(cut).replace(/[\n\t]/g, (character) => (character === '\n' ? '\\n' : '\\t'));
}
