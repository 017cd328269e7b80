import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { firstStage, type WeightedTerm } from '../../src/matcher/first-stage.js';
import { FITTED_RANKING } from '../../src/matcher/fitted-parameters.js';
import { buildSearchIndex, restoreSearchIndex, storeSearchIndex, updateSearchIndex, type SearchIndex } from '../../src/matcher/search-index.js';
import { makeToolDefinition } from './helpers.js';

// Issue #18: `hldp serve` restarted onto a commit that changed one of 100,000 generated tools (whose words every tool
// has) kept ~370 MB outside the heap for good, against ~100 MB after a plain restart: the kept search index, updated
// for the changed tool, moved the list of each of its words (nearly every entry) into the pool of moved lists with as
// much room again, beside the tight arrays read from the file (73 + 73 MB of moved slots and codes, 28 + 7 MB tight).

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
});
