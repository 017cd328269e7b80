import { countedDocument } from './counted-document.js';
import type { YamlLocator } from './yaml-locator.js';
import { documentJS } from './document-js.js';

/**
 * A refused definition's text read for what it declares, so that checks needing only a field or two (its target, its
 * aliases) tell their slips in the same run as the file's other errors (review userZ9, U9-4). A key written twice is
 * read as YAML reads it (the last wins: that error is told on its own); undefined when the YAML does not parse, or
 * nests past or holds more values than the scan lets `yaml` build — a definition refused for 500,000 levels of `- `
 * was read again here and `hldp validate` died out of memory (CI of 57152b15, test/cli/validate-deep-nesting.test.ts;
 * review Z18-3, test/cli/validate-many-values.test.ts).
 */
export function writtenDocument(text: string): { value: Record<string, unknown>; locator: YamlLocator } | undefined {
  const counted = countedDocument(text, { uniqueKeys: false });
  if ('refused' in counted) return undefined;
  const { document, locator } = counted;
  if (document.errors.length > 0) return undefined;
  let value: unknown;
  try {
    value = documentJS(document);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return { value: value as Record<string, unknown>, locator };
}
