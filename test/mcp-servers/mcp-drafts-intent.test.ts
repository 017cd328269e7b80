// Review Z8, Z8-2: an intent over 1,000 characters is refused by the scanner, so a draft from a server whose description's
// first paragraph is longer is cut where a sentence ends (else at a word), for its author to review.
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { draftTools } from '../../src/cli/mcp-drafts.js';

const draftIntent = (description: string): string => {
  const [draft] = draftTools('srv', [{ name: 't', description, inputSchema: { type: 'object', properties: {} } }], '2026-12-06');
  return (parse(draft!.text) as { intent: string }).intent;
};

describe('hldp import mcp drafts of a long description', () => {
  it('cuts the first paragraph at its last sentence within 1,000 characters', () => {
    const sentence = 'Reads one page of the wiki and returns it as Markdown. ';
    const intent = draftIntent(sentence.repeat(40).trim());
    expect(intent.length).toBeLessThanOrEqual(1000);
    expect(intent.endsWith('Markdown.')).toBe(true);
    expect(intent.startsWith(sentence.trim())).toBe(true);
  });

  it('cuts at a word, marked, when no sentence ends early enough, and keeps a short one whole', () => {
    const intent = draftIntent(`Reads ${'pages and more '.repeat(100)}`);
    expect(intent.length).toBeLessThanOrEqual(1000);
    expect(intent).toMatch(/ more…$|pages…$|and…$/);
    expect(draftIntent('Reads one page.')).toBe('Reads one page.');
  });
});
