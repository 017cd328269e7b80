// Issue #11: where the words find nothing, the vector stage offers the tools nearest in meaning — low, stage
// "vector" — only when the nearest stands out from the registry's cosines (Grubbs' test at 0.2). Its answer must not
// depend on a matcher's history: the stage measured on branch vecstage was not landed because a matcher that had made
// its tools' vectors answered otherwise than a fresh one (six matcher tests comparing them failed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult, ToolIndex } from '../../src/core/index.js';
import { createMatcher, createMatcherLettingGo, type Matcher } from '../../src/matcher/index.js';
import { grubbsCritical, MAX_VECTOR_STAGE_TOOLS } from '../../src/matcher/vector-stage.js';
import { scanOnce } from '../../src/scanner/index.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { meaningToolFiles, STORM, TOPICAL_TOOLS } from '../helpers/meaning-tools.js';

// a second weather tool: the nearest no longer stands out
const TWIN = { 'sea-forecast': 'wind and waves expected at sea' };
const toolFiles = meaningToolFiles;

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let repo: string;
// the twelve tools; the same with the twin added; then city-weather's intent reworded (a rescan's change)
let topical: ToolIndex;
let twinned: ToolIndex;
let reworded: ToolIndex;

beforeAll(async () => {
  temp = await makeTempDir('hldp-vector-stage-');
  repo = await initRepository(`${temp.path}/repo`);
  const scan = (): Promise<ToolIndex> => scanOnce(repo, { cacheDir: `${temp.path}/cache` });
  await commitFiles(repo, toolFiles(TOPICAL_TOOLS));
  topical = await scan();
  await commitFiles(repo, toolFiles(TWIN));
  twinned = await scan();
  await commitFiles(repo, { ...toolFiles({ 'city-weather': 'rain, snow and wind expected in a town' }), 'tools/sea-forecast': null });
  reworded = await scan();
}, 60_000);
afterAll(async () => {
  await temp?.cleanup();
});

const REQUESTS = [STORM, 'a thunderstorm coming', 'is it going to be sunny', 'email an invoice', 'xyzzy plugh', 'погода завтра'];
const answers = (matcher: Matcher): string => JSON.stringify(REQUESTS.map((request) => [request, matcher.matchIntent(request), matcher.matchIntent(request, { limit: 1 })]));

describe('the vector stage', () => {
  it('offers, low and by stage "vector", the tool near in meaning when the words find nothing and it stands out', () => {
    const matcher = createMatcher(topical);
    // the words alone find nothing: no tool has a word of the request
    expect(matcher.explainIntent(STORM).found).toBe(false);
    const answer = matcher.matchIntent(STORM);
    expect(answer).toMatchObject({ found: true, confidence: 'low', stage: 'vector' });
    const { candidates } = answer as Extract<MatchResult, { found: true }>;
    expect(candidates[0]).toMatchObject({ name: 'city-weather', matched: [expect.stringMatching(/^meaning: cosine 0\.\d+$/)] });
    expect(candidates.length).toBeLessThanOrEqual(3);
    expect(matcher.matchIntent(STORM, { limit: 1 })).toMatchObject({ stage: 'vector', candidates: [{ name: 'city-weather' }] });
  });

  it('answers found: false for the same request where no tool stands out (two weather tools alike)', () => {
    expect(createMatcher(twinned).matchIntent(STORM)).toMatchObject({ found: false });
  });

  it('leaves a request with a near miss to the words: a word of it in a tool, even in its why, keeps found: false', () => {
    // every tool's why is "tests need <name>" (makeToolYaml): "tests" is a near miss of each
    const answer = createMatcher(topical).matchIntent('will a storm hit the tests tomorrow');
    expect(answer).toMatchObject({ found: false });
    expect((answer as Extract<MatchResult, { found: false }>).near.length).toBeGreaterThan(0);
  });

  it('leaves what the words find to the words', () => {
    expect(createMatcher(topical).matchIntent('email an invoice to the customer')).toMatchObject({ found: true, stage: 'lexical', candidates: [{ name: 'invoice-send' }] });
  });

  it('answers the same from a fresh matcher, a prepared one, and a rescan\'s successor of either', async () => {
    const fresh = answers(createMatcher(topical));
    const prepared = await createMatcher(topical).prepareLettingGo();
    expect(answers(prepared)).toBe(fresh);
    expect(answers(await createMatcher(topical).ready())).toBe(fresh);
    // a successor takes the unchanged tools' vectors over and makes the changed one's: as a fresh matcher over that index
    const freshReworded = answers(createMatcher(reworded));
    expect(answers(await createMatcherLettingGo(reworded, { previous: prepared }))).toBe(freshReworded);
    const asked = createMatcher(twinned);
    answers(asked);
    expect(answers(createMatcher(reworded, { previous: asked }))).toBe(freshReworded);
    // and back: the successor's successor over the first index answers as the first
    expect(answers(await createMatcherLettingGo(topical, { previous: await createMatcher(reworded).prepareLettingGo() }))).toBe(fresh);
  });

  it('does not run past its bound on the registry\'s size (10,000 tools), a rule by size alone', () => {
    expect(MAX_VECTOR_STAGE_TOOLS).toBe(10_000);
    const count = topical.tools.length;
    expect(createMatcher(topical, { vectorStageTools: count }).matchIntent(STORM)).toMatchObject({ stage: 'vector' });
    const past = createMatcher(topical, { vectorStageTools: count - 1 });
    expect(past.matchIntent(STORM)).toMatchObject({ found: false });
    // the same whatever was asked before
    expect(past.matchIntent(STORM)).toEqual(createMatcher(topical, { vectorStageTools: count - 1 }).matchIntent(STORM));
  });

  it('uses Grubbs\' critical values, below the most any of n values can stand out, (n-1)/√n', () => {
    expect(grubbsCritical(5, 0.2)).toBeCloseTo(1.49, 2);
    expect(grubbsCritical(12, 0.2)).toBeCloseTo(1.953, 2);
    expect(grubbsCritical(32, 0.2)).toBeCloseTo(2.392, 2);
    expect(grubbsCritical(3148, 0.2)).toBeCloseTo(3.828, 2);
    for (const n of [3, 5, 12, 10_000]) expect(grubbsCritical(n, 0.2)).toBeLessThan((n - 1) / Math.sqrt(n));
  });
});
