import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toolsOf } from '../../src/core/index.js';
import { calibrate } from '../../src/matcher/calibration.js';
import { createMatcher, createMatcherLettingGo, FITTED_DECISION, FITTED_RANKING, searchIndexFiles } from '../../src/matcher/index.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { countingEntriesParsed, warmScanner } from '../helpers/warm-cache.js';

// Issue #18: after a one-file rescan of a registry served from the scan cache only the changed entry is made, but the
// new matcher's calibration then read every tool to count its examples and aliases (every definition made, ~1-2 s of
// CPU at 100,000 tools). Now a rescan reads only the changed tools (and a restart reads the calibration kept with its
// search index); the cut is the one measured afresh.

const TOOLS = 2_000;
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const nameOf = (at: number): string => `tool-${String(at).padStart(4, '0')}`;
const WORDS = ['ledger', 'invoice', 'weather', 'commit', 'branch', 'chart', 'email', 'sensor', 'parcel', 'ticket', 'backup', 'invoice'];
const definition = (at: number, intent = `handles the ${WORDS[at % WORDS.length]} job ${at}`): string =>
  makeToolYaml(nameOf(at), { intent, examples: `[show the ${WORDS[(at * 5) % WORDS.length]} of client${at}]`, aliases: `[${nameOf(at)}-alias, ${WORDS[(at * 3) % WORDS.length]} desk ${at}]` });

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir('hldp-calibration-rescan-');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await temp.cleanup();
});

describe('a matcher over a registry served from the scan cache', () => {
  describe('when one definition changes and the server rescans, then restarts', () => {
    it('reads only the changed entry for its calibration, and the restart none, with the cut measured afresh', async () => {
      const files: Record<string, string> = {};
      for (let at = 0; at < TOOLS; at++) files[`tools/${nameOf(at)}/TOOL.hdlp`] = definition(at);
      const { repo, cacheDir, scanner, warm } = await warmScanner(temp.path, files);
      const kept = { searchFiles: searchIndexFiles(join(temp.path, 'search')) };
      const first = await createMatcher(warm, kept).prepareLettingGo();

      await commitFiles(repo, { [`tools/${nameOf(3)}/TOOL.hdlp`]: definition(3, 'handles something else entirely') });
      const next = await scanner.scan();
      await scanner.flush();
      await new Promise((resolve) => setTimeout(resolve, 0));
      collect();
      const counted = countingEntriesParsed();
      const rescanned = await createMatcherLettingGo(next, { ...kept, previous: first });
      // none: the changed tool is held by the rescan's patch (on main: 1,743 of the 2,000, the rest still held from before)
      expect(counted.parsed()).toBeLessThan(5);
      vi.restoreAllMocks();
      const cut = calibrate(buildSearchIndex(toolsOf(next)), FITTED_RANKING, FITTED_DECISION);
      expect(cut.probes).toBeGreaterThan(0);
      expect(rescanned.explainIntent('show the ledger of client7').calibration).toEqual(cut);
      rescanned.persist();

      // a restart over the cache of that commit: its search index and calibration read from the kept file
      const restarted = await new Scanner({ repo, cacheDir }).scan();
      expect(restarted.commit).toBe(next.commit);
      collect();
      const again = countingEntriesParsed();
      const ready = await createMatcher(restarted, kept).ready();
      expect(again.parsed()).toBeLessThan(5);
      vi.restoreAllMocks();
      expect(ready.explainIntent('show the ledger of client7').calibration).toEqual(cut);
    });
  });
});
