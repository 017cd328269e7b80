import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, parseDocument, type Document, type Scalar, type YAMLMap } from 'yaml';
import { countedDocument, documentJS } from '../scanner/index.js';
import { documentText, yamlText } from './mcp-drafts.js';

// the existing file is read as it always was here, with yaml's own defaults (a key twice is an error, tags resolved)
const YAML_DEFAULTS = { prettyErrors: true, uniqueKeys: true, resolveKnownTags: true };

// what a draft takes from the server's tools/list; everything else in a definition is the reviewer's (review userX, X5)
const SERVER_FIELDS = ['display', 'intent', 'params_schema', 'output_schema'] as const;

// what the draft would decide from the server's annotations, and a reviewer may have decided otherwise
const REVIEWED_DECISIONS = [['constraints', 'require_confirm'], ['mcp', 'idempotent']] as const;

/** What `--force` did to a definition that existed: the server's fields it changed, and the reviewed decisions it kept against the server's word. */
export interface Refreshed {
  changed: string[];
  kept: string[];
}

/** A draft's text for the file it goes to, and what refreshing an existing definition changed there. */
export type RefreshOutcome = { ok: true; text: string; refreshed?: Refreshed } | { ok: false; message: string };

/**
 * The text `--force` writes over `<out>/<name>/TOOL.hdlp`: a new draft where there is no file; over a definition that
 * exists, that definition with only what comes from the server refreshed (display, intent, params_schema,
 * output_schema), so author, why, created, constraints (`require_confirm` above all), `mcp.idempotent`, aliases,
 * examples and comments stay as the reviewer left them (review userX, X5: they were reset to the server's and emptied).
 */
export async function refreshOver(out: string, name: string, draft: string): Promise<RefreshOutcome> {
  const path = join(resolve(out), name, 'TOOL.hdlp');
  const existing = await readRegularFile(path);
  if (existing === undefined) return { ok: true, text: draft };
  // a file that is no YAML mapping holds no reviewed field to keep: --force drafts it anew, as it always did; so does
  // one the scan refuses before yaml builds it (nested too deep, too many values), which yaml built whole here (sig27)
  const counted = countedDocument(existing, YAML_DEFAULTS);
  if ('refused' in counted) return { ok: true, text: draft };
  const reviewed = counted.document;
  if (reviewed.errors.length || !isMap(reviewed.contents)) return { ok: true, text: draft };
  const [before, server] = [documentJS(reviewed) as Record<string, unknown>, parseDocument(draft).toJS() as Record<string, unknown>];
  const changed = SERVER_FIELDS.filter((field) => !isDeepStrictEqual(before[field], server[field]));
  const at = (value: Record<string, unknown>, [block, key]: readonly [string, string]): unknown => (value[block] as Record<string, unknown> | undefined)?.[key];
  const kept = REVIEWED_DECISIONS.filter((path) => at(before, path) !== at(server, path)).map(
    (path) => `${path.join('.')}: ${String(at(before, path) ?? 'unset')} (the server's annotations would make it ${String(at(server, path) ?? 'unset')})`,
  );
  if (changed.length === 0) return { ok: true, text: existing, refreshed: { changed, kept } };
  return { ok: true, text: spliced(existing, reviewed, changed, server), refreshed: { changed, kept } };
}

/**
 * `existing` with each changed field's text replaced by the server's, so the rest keeps its every byte and comment and
 * the diff shows only what the server changed; written whole through `yaml` if the splice would not read back right.
 */
function spliced(existing: string, reviewed: Document, changed: readonly string[], server: Record<string, unknown>): string {
  const items = (reviewed.contents as YAMLMap).items;
  const edits = changed.map((field) => {
    const pair = items.find((item) => isScalar(item.key) && item.key.value === field);
    const text = field in server ? yamlText({ [field]: server[field] }).text.replace(/\n$/, '') : '';
    const keyRange = (pair?.key as Scalar | undefined)?.range;
    const valueRange = (pair?.value as Scalar | undefined)?.range;
    if (!keyRange) return { from: existing.length, to: existing.length, text: `${existing.endsWith('\n') ? '' : '\n'}${text}\n` };
    const to = valueRange ? valueRange[1] : keyRange[1];
    // a block value's range takes its last line break: the next key keeps its line
    return { from: keyRange[0], to, text: text === '' ? '' : `${text}${existing[to - 1] === '\n' ? '\n' : ''}` };
  });
  let text = existing;
  for (const edit of edits.sort((a, b) => b.from - a.from)) text = text.slice(0, edit.from) + edit.text + text.slice(edit.to);
  const readBack = parseDocument(text);
  const right = readBack.errors.length === 0 && changed.every((field) => isDeepStrictEqual((documentJS(readBack) as Record<string, unknown>)[field], server[field]));
  if (right) return text;
  for (const field of changed) {
    if (field in server) reviewed.set(field, server[field]);
    else reviewed.delete(field);
  }
  return documentText(reviewed).text;
}

// the file's text, or undefined when there is none; a link is left for writeDrafts to refuse, never read through
async function readRegularFile(path: string): Promise<string | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await file.readFile('utf8');
  } finally {
    await file.close();
  }
}
