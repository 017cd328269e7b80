import { foldedKey, runLettingGo, runToEnd, type Diagnostic } from '../core/index.js';
import type { DefinitionFile } from './parse-tool-definition.js';
import { ScanStopped, type ToolEntry } from './sources/source.js';
import type { Position } from './yaml-locator.js';
import { definitionText, readYamlMapping, type YamlMapping } from './yaml-mapping.js';
import { countedDocument } from './counted-document.js';
import { yamlModule } from './yaml-module.js';

/**
 * An `ALIAS_CONFLICT` warning whose position only its file's text says: where it is among the index's warnings, the
 * entry whose definition writes the alias, and the alias. Neither a summary nor the scan cache keeps aliases'
 * positions (a definition read by the fast reader has none, and finding them costs a full YAML parse): the few files
 * that have a conflict are read again once the index is assembled.
 */
export interface AliasToPlace {
  at: number;
  entry: ToolEntry;
  alias: string;
  /** a warning about the definition's `group` (`GROUP_NAMES_TOOL`), placed at its value */
  field?: 'group';
}

/** Where `alias` is written among the `aliases` of a definition's text (or its `group` is), or undefined if it is not (the file changed). */
export function aliasPosition(text: string, alias: string, field: 'aliases' | 'group' = 'aliases'): Position | undefined {
  return aliasPlaces(text)(alias, field);
}

/**
 * Where each alias of a definition's text is written (and its `group`), from one parse of it: a file whose N aliases
 * conflict was parsed whole once per alias, O(N²) — 4,000 of them held `hldp scan` 116 s (review Z20, Z20-1). The text
 * was accepted by the scan, which checked its keys' uniqueness its own linear way: yaml's check is quadratic in a
 * mapping's keys (Z20-7), so it is not asked for again.
 */
export function aliasPlaces(text: string): (alias: string, field?: 'aliases' | 'group') => Position | undefined {
  const { isScalar, isSeq } = yamlModule();
  // a file that changed since the scan read it may now be one the scan refuses before yaml builds it
  const counted = countedDocument(text, { uniqueKeys: false });
  if ('refused' in counted) return () => undefined;
  const { document, lineCounter } = counted;
  const read = document.errors.length === 0;
  // each alias's first place in the list, by its value as yaml read it
  const offsets = new Map<unknown, number>();
  const aliases = read ? document.get('aliases', true) : undefined;
  if (isSeq(aliases)) for (const node of aliases.items) if (isScalar(node) && node.range && !offsets.has(node.value)) offsets.set(node.value, node.range[0]);
  const group = read ? document.get('group', true) : undefined;
  const groupAt = isScalar(group) ? group.range?.[0] : undefined;
  return (alias, field = 'aliases') => {
    const offset = field === 'group' ? groupAt : offsets.get(alias);
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
}

/** `warnings` with each alias conflict at its alias, where `textOf` gives its file's text (else left where it was). */
export function placeAliasConflicts(warnings: readonly Diagnostic[], toPlace: readonly AliasToPlace[], textOf: (entry: ToolEntry) => string | undefined): Diagnostic[] {
  return runToEnd(placing(warnings, toPlace, textOf));
}

// places the conflicts a file at a time (each file's text parsed once), yielding between files
function* placing(warnings: readonly Diagnostic[], toPlace: readonly AliasToPlace[], textOf: (entry: ToolEntry) => string | undefined): Generator<void, Diagnostic[]> {
  const placed = warnings.slice();
  const byEntry = new Map<ToolEntry, AliasToPlace[]>();
  for (const conflict of toPlace) {
    const conflicts = byEntry.get(conflict.entry);
    if (conflicts) conflicts.push(conflict);
    else byEntry.set(conflict.entry, [conflict]);
  }
  for (const [entry, conflicts] of byEntry) {
    const text = textOf(entry);
    if (text === undefined) continue;
    const placeOf = aliasPlaces(text);
    for (const { at, alias, field } of conflicts) {
      const position = placeOf(alias, field);
      if (position) placed[at] = { ...placed[at]!, ...position };
    }
    yield;
  }
  return placed;
}

/**
 * {@link placeAliasConflicts} reading each file from the source (one that cannot be read leaves its warning where it
 * was). A scan stopped meanwhile (`ScanStopped`: a service stopped while it starts) is no file that cannot be read: it
 * ends the placement, and so the scan, which keeps nothing — taken for a missing position, the stop let the scan go on
 * and keep its cache file with each such warning at its file's first line, served so by every later start.
 */
export async function placeAliasConflictsReading(warnings: readonly Diagnostic[], toPlace: readonly AliasToPlace[], read: (entry: ToolEntry) => Promise<DefinitionFile | Diagnostic>): Promise<Diagnostic[]> {
  if (toPlace.length === 0) return warnings.slice();
  const texts = new Map<ToolEntry, string>();
  for (const { entry } of toPlace) {
    if (texts.has(entry)) continue;
    const file = await read(entry).catch((error: unknown) => {
      if (error instanceof ScanStopped) throw error;
      return undefined;
    });
    if (file && 'content' in file) texts.set(entry, textOfFile(file));
  }
  // the loop let go between files: a rescan's conflicts held every request while they were placed (Z20-1)
  return runLettingGo(placing(warnings, toPlace, (entry) => texts.get(entry)));
}

/** A definition's text as the parser read it (UTF-8; a front matter's lines keep their numbers in the whole file). */
export function textOfFile(file: DefinitionFile): string {
  return Buffer.from(file.content).toString('utf8');
}

/**
 * Whether a definition lists `alias` (folded: any letter case, ё as е) among its `aliases`: how git history says since when a tool
 * declared one. It is read as the scan reads a definition (the 1 MiB bound, UTF-8, the fast reader, the hostile-YAML
 * limits): one those refuse as too large or too costly is `unreadable`, not "does not declare it", so the walk fails
 * closed (a 12 MiB blob one commit back was parsed whole and took the process out of heap: review Z4, F1); one the
 * scan would refuse otherwise (a syntax error, not UTF-8) declared nothing.
 */
export function aliasDeclared(content: Uint8Array, alias: string): boolean | { unreadable: string } {
  const file = { path: 'TOOL.hdlp', folder: '', oid: '', content };
  const text = definitionText(file, 'TOOL.hdlp');
  if ('diagnostic' in text) return text.diagnostic.code === 'FILE_TOO_LARGE' ? { unreadable: text.diagnostic.message } : false;
  let mapping: YamlMapping;
  try {
    mapping = readYamlMapping(file, text.text, 'TOOL.hdlp', 'the tool fields');
  } catch (error) {
    return { unreadable: `it could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
  if (!mapping.ok) {
    const limit = mapping.diagnostics.find((diagnostic) => diagnostic.code === 'YAML_RESOURCE_LIMIT');
    return limit ? { unreadable: limit.message } : false;
  }
  const aliases = mapping.value.aliases;
  const wanted = foldedKey(alias);
  return Array.isArray(aliases) && aliases.some((value) => (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && foldedKey(String(value)) === wanted);
}
