import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { firstStage, type WeightedTerm } from '../../src/matcher/first-stage.js';
import { FITTED_RANKING } from '../../src/matcher/fitted-parameters.js';
import { decodeSearchIndexFile, encodeSearchIndexFile } from '../../src/matcher/search-index-layout.js';
import { buildSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { restoreSearchIndex, searchIndexToWrite, storeSearchIndex } from '../../src/matcher/stored-search-index.js';
import { updateSearchIndex } from '../../src/matcher/update-search-index.js';
import { makeToolDefinition } from './helpers.js';

// Issue #18: `hldp serve` restarted onto a commit that changed one of 100,000 generated tools (whose words every tool
// has) kept ~370 MB outside the heap for good, against ~100 MB after a plain restart: the kept search index, updated
// for the changed tool, moved the list of each of its words (nearly every entry) into the pool of moved lists with as
// much room again, beside the tight arrays read from the file (73 + 73 MB of moved slots and codes, 28 + 7 MB tight).

// Issue #18, after that: the same restart still peaked at ~400 MB RSS. The update compacted (the kept arrays and their
// copy alive at once), and writing the updated index for the new commit copied every entry and every record's numbers
// (~100 MB beside the index) before writing them.

// every tool has the same words but for its name and number: as the generated registry's tools do
function makeTool(at: number, variant = ''): ToolDefinition {
  return makeToolDefinition({ name: `tool-${at}`, intent: `run the checks of tool ${at} on the target folder and report ${variant}`, why: `checks the target folder number${at % 50}`, examples: [`run tool ${at} on the target`, 'check the target folder'] });
}

const REQUESTS: WeightedTerm[][] = [['run', 'target'], ['check', 'folder', 'number7'], ['report', 'changed'], ['tool', 'number3']].map((terms) => terms.map((term) => ({ term, weight: 1 })));
const answers = (index: SearchIndex) => REQUESTS.map((request) => firstStage(index, { ...FITTED_RANKING, depth: 20 }, request));

// entries the postings hold room for: the tight pool and the pool of moved lists, as allocated
const allocated = (index: SearchIndex): number => index.engine.postings.slots.length + index.engine.postings.movedSlots.length;

describe('a search index read from its file and updated for one changed tool', () => {
  it('holds about what a fresh build holds, not every list moved with room to spare beside the arrays it was read with', () => {
    const tools = Array.from({ length: 3000 }, (_, at) => makeTool(at));
    // as a restart reads it: tight arrays from the file
    const kept = restoreSearchIndex(storeSearchIndex(buildSearchIndex(tools)), tools)!;
    const next = tools.map((tool, at) => (at === 3 ? makeTool(3, 'changed') : tool));
    const fresh = buildSearchIndex(next);
    const updated = updateSearchIndex(kept, next);
    expect(answers(updated)).toEqual(answers(fresh));
    // on the old code 3.1 × a fresh build's (its tight pool, and nearly every entry moved with room doubled)
    expect(allocated(updated)).toBeLessThan(1.5 * allocated(fresh));
  });

  it('still moves only the lists that outgrow their room when they hold few of the entries', () => {
    const tools = Array.from({ length: 3000 }, (_, at) => makeTool(at));
    const kept = restoreSearchIndex(storeSearchIndex(buildSearchIndex(tools)), tools)!;
    const tight = kept.engine.postings.slots;
    // a tool of words no other tool has: its few short lists move, the tight pool stays as it is
    const next = [...tools, makeToolDefinition({ name: 'lone', intent: 'translate klingon poetry', why: 'rare words only', examples: ['translate a klingon poem'] })];
    const updated = updateSearchIndex(kept, next);
    expect(updated.engine.postings.slots).toBe(tight);
    expect(answers(updated)).toEqual(answers(buildSearchIndex(next)));
  });

  it.each([
    ['in as many fields as before', 'report nothing new'],
    ['with a word in more fields than before', 'check check the target folder'],
    ['with a word in fewer fields, and a word gone', 'run'],
  ])('rewrites a tool changed %s in its slot, the arrays read from the file kept, and answers as a fresh build', (_, variant) => {
    const tools = Array.from({ length: 3000 }, (_, at) => makeTool(at));
    const kept = restoreSearchIndex(storeSearchIndex(buildSearchIndex(tools)), tools)!;
    const { slots, codes } = kept.engine.postings;
    const changed = makeToolDefinition({ name: 'tool-3', intent: variant, why: 'checks the target folder number3', examples: ['run tool 3 on the target'] });
    const next = tools.map((tool, at) => (at === 3 ? changed : tool));
    const updated = updateSearchIndex(kept, next);
    expect(answers(updated)).toEqual(answers(buildSearchIndex(next)));
    // on the old code a new slot: every list of its words moved, so the update compacted into new arrays
    expect(updated.engine.postings.slots).toBe(slots);
    expect(updated.engine.postings.codes).toBe(codes);
    expect(updated.records.at(3)!.id).toBe(kept.records.at(3)!.id);
    expect(updated.engine.postings.deadSlots).toBe(0);
    // each list it now has in more fields moved alone (a list holds at most one entry per tool and field)
    expect(updated.engine.postings.movedUsed).toBeLessThan(3 * 2 * 3000 * 2);
  });
});

describe('a search index written to its file', () => {
  it('hands over its entries and records a piece at a time, never copied whole, into the file a whole copy makes', () => {
    const tools = Array.from({ length: 5000 }, (_, at) => makeTool(at));
    // updated: a dead slot, lists moved, slots that are not positions: the writer renumbers as a compaction does
    const next = [...tools.slice(0, 10), ...tools.slice(11), makeToolDefinition({ name: 'lone', intent: 'translate klingon poetry' }), makeTool(3, 'changed')];
    next.splice(3, 1);
    const index = updateSearchIndex(restoreSearchIndex(storeSearchIndex(buildSearchIndex(tools)), tools)!, next);
    expect(index.engine.postings.deadSlots).toBeGreaterThan(0);
    const written = searchIndexToWrite(index);
    for (const array of [written.postings.slots, written.postings.codes, written.data]) {
      const pieces = [...array.pieces()].map((piece) => ({ length: piece.length, buffer: piece.buffer }));
      expect(pieces.length).toBeGreaterThan(1);
      // one piece, reused: no array of every entry (or every record's numbers) is made beside the index
      expect(new Set(pieces.map((piece) => piece.buffer)).size).toBe(1);
      expect(pieces.reduce((sum, piece) => sum + piece.length, 0)).toBe(array.length);
    }
    // each piece copied as it comes, as the writer writes it before it asks for the next
    const bytes = (stored: Parameters<typeof encodeSearchIndexFile>[1]): Buffer => {
      const copies: Buffer[] = [];
      for (const piece of encodeSearchIndexFile('v', stored)) copies.push(Buffer.from(piece));
      return Buffer.concat(copies);
    };
    const file = bytes(written);
    expect(file.equals(bytes(storeSearchIndex(index)))).toBe(true);
    const decoding = decodeSearchIndexFile(file.length);
    let step = decoding.next(0);
    while (!step.done) {
      const { into, position } = step.value;
      into.set(file.subarray(position, position + into.length));
      step = decoding.next(into.length);
    }
    const restored = restoreSearchIndex(step.value!.stored, next)!;
    expect(answers(restored)).toEqual(answers(buildSearchIndex(next)));
  });
});
