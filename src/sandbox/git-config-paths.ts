import { controlText } from './control-text.js';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

// The paths a repository's own config sends git to by itself, for whoever next runs git there: the folder of hooks
// (core.hooksPath) and the config files it includes (include.path, includeIf.<condition>.path), whose settings are
// the repository's as much as its config's are (review P, leftovers of the git-folder rules).

/** What a git folder's config files name: hooks folders (as written: relative ones are the working tree's) and included files (absolute). */
export interface ConfigPaths {
  hooksPaths: string[];
  includes: string[];
}

/** As deep as git follows includes (config.c's MAX_INCLUDE_DEPTH). */
const MAX_INCLUDE_DEPTH = 10;

// most configs name neither: a look at the raw text spares them the parse
const MAY_NAME_A_PATH = /hookspath|\bpath\s*=/i;

/**
 * The hooks folders and included files that `files` (a git folder's config and config.worktree, in git's order) name,
 * following includes whatever their condition (a condition the owner's next git meets is not known here). A file
 * that cannot be read names nothing: git reads a missing include as empty.
 */
export function configPaths(files: readonly string[]): ConfigPaths {
  const found: ConfigPaths = { hooksPaths: [], includes: [] };
  const read = (file: string, depth: number): void => {
    // an include may be a link (a dotfile kept elsewhere), but never a FIFO or a device (review Q, Q8)
    const text = controlText(file, 1_048_576, { follow: true });
    if (!MAY_NAME_A_PATH.test(text)) return;
    for (const { key, value } of configEntries(text)) {
      if (key === 'core.hookspath' && value !== '') found.hooksPaths.push(expandHome(value));
      else if (/^include(?:if\..*)?\.path$/s.test(key) && value !== '') {
        const included = resolve(dirname(file), expandHome(value));
        if (found.includes.includes(included)) continue;
        found.includes.push(included);
        if (depth < MAX_INCLUDE_DEPTH) read(included, depth + 1);
      }
    }
  };
  for (const file of files) read(file, 1);
  return found;
}

/** `~/x` as git expands it, for the user the gateway runs as (the owner's own home is not known here). */
function expandHome(path: string): string {
  if (path === '~' || path.startsWith('~/')) return join(homedir(), path.slice(1));
  return path;
}

/** A relative path as git reads it from a working tree's top (core.hooksPath), or the absolute one. */
export function fromTop(top: string, path: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(top, path);
}

/**
 * A config file's `section[.subsection].key = value` entries, keys lower-cased but the subsection, as git's config
 * reader sees them: comments (`#`, `;`) outside quotes, double quotes, backslash escapes and line continuations.
 */
export function configEntries(text: string): { key: string; value: string }[] {
  const entries: { key: string; value: string }[] = [];
  let section = '';
  let position = 0;
  const at = (): string => text[position] ?? '';
  const skipBlanks = (): void => {
    while (at() === ' ' || at() === '\t') position++;
  };
  const skipLine = (): void => {
    while (position < text.length && at() !== '\n') position++;
    position++;
  };
  while (position < text.length) {
    skipBlanks();
    const first = at();
    if (first === '\n' || first === '\r') position++;
    else if (first === '#' || first === ';') skipLine();
    else if (first === '[') {
      const end = text.indexOf(']', position);
      if (end < 0) return entries;
      const header = text.slice(position + 1, end);
      const quoted = /^\s*([^\s"]+)\s+"((?:[^"\\]|\\.)*)"\s*$/s.exec(header);
      if (quoted) section = `${quoted[1]!.toLowerCase()}.${quoted[2]!.replace(/\\(.)/gs, '$1')}`;
      else {
        // [section.subsection], the old spelling: the subsection is lower-cased too
        section = header.trim().toLowerCase();
      }
      position = end + 1;
    } else {
      const name = /^[A-Za-z][A-Za-z0-9-]*/.exec(text.slice(position, position + 256))?.[0];
      if (name === undefined) {
        skipLine();
        continue;
      }
      position += name.length;
      skipBlanks();
      let value = '';
      if (at() === '=') {
        position++;
        value = readValue();
      } else skipLine();
      entries.push({ key: `${section}.${name.toLowerCase()}`, value });
    }
  }
  return entries;

  function readValue(): string {
    let value = '';
    let quoted = false;
    let pendingSpace = '';
    skipBlanks();
    while (position < text.length) {
      const character = at();
      position++;
      if (character === '\n' && !quoted) break;
      if (!quoted && (character === '#' || character === ';')) {
        while (position < text.length && at() !== '\n') position++;
        break;
      }
      // unquoted, each blank is a space to git; blanks before the value's first character and at its end are none
      if (!quoted && (character === ' ' || character === '\t')) {
        if (value !== '') pendingSpace += ' ';
        continue;
      }
      if (character === '\r' && at() === '\n') continue;
      value += pendingSpace;
      pendingSpace = '';
      if (character === '"') quoted = !quoted;
      else if (character === '\\') {
        const next = at();
        position++;
        if (next === '\n') continue;
        value += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next;
      } else value += character;
    }
    return value;
  }
}
