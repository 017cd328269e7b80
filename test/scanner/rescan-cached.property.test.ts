import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';
import { comparableIndex, countingListings } from '../helpers/warm-cache.js';

// Issue #18: a rescan of an index served from the scan cache, and a start onto a commit newer than the cache's, patch
// the cached index from the trees' differences. Whatever the changes (tools added, removed, renamed, edited, their
// aliases and groups changed, definitions broken and mended, toolsets and policies naming them), and however many
// commits a restart skips, the index must be exactly what a fresh scan of that commit builds.

// No two definitions here claim one name or one alias: since twin14, which of two claimants keeps a name or an alias
// depends on which one the previous index served (history a fresh scan of one commit does not have), so such commits
// are not "exactly a fresh scan". That rule has its own property (name-claims.property.test.ts) and tests through a
// rescan, a restart and a start onto a newer commit (rescan-any-change.test.ts, http/name-twin-serve.test.ts). An alias
// that is another tool's name (any case) is still generated: the name of a filler tool, there from the first commit and
// never removed, so the alias is dropped whatever the history. (Since review Z, Z1, an alias a tool served stays its
// alias when a tool named so is added later: an alias naming alpha..omega, which come and go, would depend on history.)
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
const OTHER_NAME: Record<string, string> = { alpha: 'filler-1', beta: 'Filler-2', gamma: 'filler-3', delta: 'FILLER-4', omega: 'filler-5' };
const ALIASES = ['none', 'own', 'two', 'another tool\'s name'];
const aliasesOf = (name: string, kind: string): string =>
  kind === 'none' ? '[]' : kind === 'own' ? `[${name}-al]` : kind === 'two' ? `[${name}-be, ${name}-ga]` : `[${OTHER_NAME[name]}]`;
const GROUPS = ['', 'letters', 'greek'];

type Operation =
  | { kind: 'put'; name: string; intent: number; aliases: string; group: string }
  | { kind: 'remove'; name: string }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'break'; name: string }
  | { kind: 'toolset'; members: string[] }
  | { kind: 'policy'; members: string[] };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), name: fc.constantFrom(...NAMES), intent: fc.nat(3), aliases: fc.constantFrom(...ALIASES), group: fc.constantFrom(...GROUPS) }),
  fc.record({ kind: fc.constant('remove' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('rename' as const), from: fc.constantFrom(...NAMES), to: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('break' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('toolset' as const), members: fc.uniqueArray(fc.constantFrom(...NAMES, 'letters', 'greek'), { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('policy' as const), members: fc.uniqueArray(fc.constantFrom(...NAMES, 'letters'), { minLength: 1, maxLength: 2 }) }),
);

/** One commit's operations, and whether the scanner is restarted (a new process over the same cache) before it scans. */
const step = fc.record({ operations: fc.array(operation, { minLength: 1, maxLength: 3 }), restart: fc.boolean(), skip: fc.boolean() });

const definition = (name: string, intent: number, aliases: string, group: string): string => makeToolYaml(name, { intent: `handles ${name} ${intent}`, aliases, ...(group ? { group } : {}) });

let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  temp = await makeTempDir('hldp-rescan-cached-');
});
afterAll(() => temp.cleanup());

describe('a Scanner patching an index served from the scan cache', () => {
  let round = 0;

  it('holds after every commit, rescanned or restarted onto, exactly the index a fresh scan of that commit builds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 5 }), async (steps) => {
        round++;
        const repo = await initRepository(join(temp.path, `repo-${round}`));
        const cacheDir = join(temp.path, `cache-${round}`);
        const present = new Map<string, string>();
        const start: Record<string, string> = {};
        for (let at = 0; at < 40; at++) start[`tools/filler-${at}/TOOL.hdlp`] = makeToolYaml(`filler-${at}`, at % 7 === 0 ? { group: 'letters' } : {});
        for (const name of ['alpha', 'beta']) {
          start[`tools/${name}/TOOL.hdlp`] = definition(name, 0, '[]', 'letters');
          present.set(name, 'ok');
        }
        await commitFiles(repo, start);
        let scanner = new Scanner({ repo, cacheDir });
        await scanner.scan();
        await scanner.flush();
        // a restart serves the cache before anything changed, then the commits after it
        const counted = { listings: 0 };
        scanner = new Scanner({ repo, cacheDir });
        countingListings(scanner, counted);
        await scanner.scan();
        for (const [number, { operations, restart, skip }] of steps.entries()) {
          const files: Record<string, string | null> = {};
          for (const op of operations) {
            if (op.kind === 'put') {
              files[`tools/${op.name}/TOOL.hdlp`] = definition(op.name, op.intent, aliasesOf(op.name, op.aliases), op.group);
              present.set(op.name, 'ok');
            } else if (op.kind === 'remove' && present.has(op.name)) {
              files[`tools/${op.name}/TOOL.hdlp`] = null;
              present.delete(op.name);
            } else if (op.kind === 'rename' && present.has(op.from) && !present.has(op.to)) {
              files[`tools/${op.from}/TOOL.hdlp`] = null;
              files[`tools/${op.to}/TOOL.hdlp`] = definition(op.to, number, '[]', '');
              present.delete(op.from);
              present.set(op.to, 'ok');
            } else if (op.kind === 'break' && present.has(op.name)) {
              files[`tools/${op.name}/TOOL.hdlp`] = `name: ${op.name}\nintent: [unclosed\n`;
            } else if (op.kind === 'toolset') {
              files['toolsets/ops/TOOLSET.hdlp'] = `name: ops\ndescription: operations\ntools: [${op.members.join(', ')}]\nauthor: TEST-001\nwhy: tests\n`;
            } else if (op.kind === 'policy') {
              files['policies/writes.hdlp'] = `name: writes\nauthor: TEST-001\nwhy: tests\naccess:\n  - tools: [${op.members.join(', ')}]\n    roles: [trusted]\n`;
            }
          }
          await commitFiles(repo, { ...files, [`notes/${number}.md`]: `step ${number}\n` }, `step ${number}`);
          // a commit the scanner never saw: the next scan (or restart) skips it
          if (skip) continue;
          if (restart) {
            await scanner.flush();
            scanner = new Scanner({ repo, cacheDir });
            countingListings(scanner, counted);
          }
          const index = await scanner.scan();
          const fresh = await scanOnce(repo, { cacheDir: join(temp.path, `fresh-${round}-${number}`) });
          expect(index.commit).toBe(fresh.commit);
          expect(comparableIndex(index)).toEqual(comparableIndex(fresh));
          // patched from the trees' differences: on 50f6cad a change other than in place listed (and made) every entry
          expect(counted.listings).toBe(0);
        }
        await scanner.flush();
        // the last cache written is that commit's scan, as a restart reads it
        const last = await new Scanner({ repo, cacheDir }).scan();
        expect(comparableIndex(last)).toEqual(comparableIndex(await scanOnce(repo, { cacheDir: join(temp.path, `fresh-${round}-last`) })));
      }),
      { numRuns: runs(12) },
    );
  }, propertyTimeout(300_000));
});
