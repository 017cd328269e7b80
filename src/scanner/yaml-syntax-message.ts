import type { Document } from 'yaml';
import type { YamlLocator } from './yaml-locator.js';
import { yamlModule } from './yaml-module.js';

/**
 * How definitions (and the operator's config file) are parsed: the YAML 1.2 core schema's tags only (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`,
 * `!!map`, `!!seq`), not the YAML 1.1 ones `yaml` knows besides (`!!binary`, `!!timestamp`, `!!set`, `!!omap`, …).
 */
export const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: true, resolveKnownTags: false } as const;

const CORE_TAGS = ['!!str', '!!int', '!!float', '!!bool', '!!null', '!!map', '!!seq'];

/**
 * Each tag of the document the core schema cannot resolve (an unknown one, or a core one its value does not fit), where
 * it is written; `subject` names the file in the message ('a definition', 'the config').
 */
export function unknownTags(document: Document, text: string, subject = 'a definition'): { offset: number; message: string }[] {
  return document.warnings.filter((warning) => warning.code === 'TAG_RESOLVE_FAILED').map((warning) => {
    const written = text.slice(warning.pos[0], warning.pos[1]).split(/\s/)[0]!;
    const tag = written.length > 64 ? `${written.slice(0, 64)}…` : written;
    const message = CORE_TAGS.includes(written)
      ? `YAML tag '${tag}' does not fit the value after it; remove the tag (or write the value it expects)`
      : `unknown YAML tag '${tag}': ${subject} is plain YAML 1.2, whose tags are ${CORE_TAGS.join(', ')}; remove it and write the value itself (quoted, if it is text)`;
    return { offset: warning.pos[0], message };
  });
}

/** A YAML error in our words (undefined: the library's own will do) where the library's advise its own API (parseAllDocuments) or leave out what to fix (which key). */
export function syntaxMessage(error: { code: string; message: string; pos: [number, number] }, document: Document, locator: YamlLocator, label: string, line: number): string | undefined {
  if (error.code === 'MULTIPLE_DOCS') return `${/^[A-Z]/.test(label) ? `a ${label}` : label} holds one YAML document: remove the \`---\` at line ${line}`;
  if (error.code === 'DUPLICATE_KEY') {
    const duplicate = duplicateKeyAt(document, error.pos[0]);
    if (duplicate) return `key '${duplicate.key.length > 64 ? `${duplicate.key.slice(0, 64)}…` : duplicate.key}' is written twice in one mapping (first at line ${locator.at(duplicate.firstOffset).line}): keep one`;
  }
  return undefined;
}

// the key a DUPLICATE_KEY error points at, and where the same key was first written in its mapping
function duplicateKeyAt(document: Document, offset: number): { key: string; firstOffset: number } | undefined {
  const { isMap, isScalar, visit } = yamlModule();
  let found: { key: string; firstOffset: number } | undefined;
  visit(document, {
    Map(_key, map) {
      if (!isMap(map)) return undefined;
      const first = new Map<string, number>();
      for (const pair of map.items) {
        if (!isScalar(pair.key) || !pair.key.range) continue;
        const key = String(pair.key.value);
        if (pair.key.range[0] === offset && first.has(key)) {
          found = { key, firstOffset: first.get(key)! };
          return visit.BREAK;
        }
        if (!first.has(key)) first.set(key, pair.key.range[0]);
      }
      return undefined;
    },
  });
  return found;
}
