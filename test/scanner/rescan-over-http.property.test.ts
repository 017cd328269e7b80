import fc from 'fast-check';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { commitFiles, git, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';

// A running Scanner fetches each new commit (a thin pack, indexed by our own reader) and re-reads only the folders whose
// tree changed: after every push its index must be exactly what a fresh scan of that commit gives — tools added,
// changed, removed, renamed, broken, a toolset edited, and the branch forced back to an earlier commit.

const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
const INTENTS = ['reads things', 'writes things', 'lists things'];

type Operation =
  | { kind: 'put'; name: string; intent: string }
  | { kind: 'remove'; name: string }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'break'; name: string }
  | { kind: 'toolset'; members: string[] }
  | { kind: 'reset'; back: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), name: fc.constantFrom(...NAMES), intent: fc.constantFrom(...INTENTS) }),
  fc.record({ kind: fc.constant('remove' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('rename' as const), from: fc.constantFrom(...NAMES), to: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('break' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('toolset' as const), members: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('reset' as const), back: fc.integer({ min: 1, max: 3 }) }),
);

// padding, so that the tools/ tree and its blobs are large enough for git to send deltas against what we hold
const filler = (name: string): Record<string, string> =>
  Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`tools/filler-${index}/TOOL.hdlp`, makeToolYaml(`filler-${index}`, { why: `padding for ${name} ${'x'.repeat(300)}` })]));

/** The index without the moment it was made: what a rescan and a fresh scan of one commit must agree on. */
function comparable(index: ToolIndex): object {
  const { scanned_at: _scannedAt, ...rest } = index;
  return JSON.parse(JSON.stringify({ ...rest, tools: index.tools }));
}

let temp: { path: string; cleanup: () => Promise<void> };
let server: GitHttpServer;

beforeAll(async () => {
  temp = await makeTempDir('hldp-rescan-http-');
  server = await startGitHttpServer({ projectRoot: join(temp.path, 'served') });
});
afterAll(async () => {
  await server.close();
  await temp.cleanup();
});

describe('a Scanner rescanning a remote over smart HTTP', () => {
  let round = 0;

  it('holds after every push exactly the index a fresh scan of that commit builds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(operation, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 4 }), async (commits) => {
        round++;
        const bare = join(temp.path, 'served', `tools-${round}.git`);
        await initRepository(bare, { bare: true });
        const work = await initRepository(join(temp.path, `work-${round}`));
        const url = `${server.url}/tools-${round}.git`;
        await git(work, 'remote', 'add', 'origin', url);
        const present = new Set(['alpha', 'beta']);
        const history = [await commitFiles(work, { ...filler('start'), 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha'), 'tools/beta/TOOL.hdlp': makeToolYaml('beta') })];
        await git(work, 'push', '-q', 'origin', 'main');
        const scanner = new Scanner({ repo: url, cacheDir: join(temp.path, `cache-${round}`) });
        await scanner.scan();
        for (const [step, operations] of commits.entries()) {
          const files: Record<string, string | null> = {};
          let reset: number | undefined;
          for (const op of operations) {
            if (op.kind === 'put') {
              files[`tools/${op.name}/TOOL.hdlp`] = makeToolYaml(op.name, { intent: `${op.intent} ${step}` });
              present.add(op.name);
            } else if (op.kind === 'remove' && present.has(op.name)) {
              files[`tools/${op.name}/TOOL.hdlp`] = null;
              present.delete(op.name);
            } else if (op.kind === 'rename' && present.has(op.from) && !present.has(op.to)) {
              files[`tools/${op.from}/TOOL.hdlp`] = null;
              files[`tools/${op.to}/TOOL.hdlp`] = makeToolYaml(op.to, { intent: `renamed from ${op.from}` });
              present.delete(op.from);
              present.add(op.to);
            } else if (op.kind === 'break' && present.has(op.name)) {
              files[`tools/${op.name}/TOOL.hdlp`] = `name: ${op.name}\ndisplay: [broken\n`;
            } else if (op.kind === 'toolset') {
              files['toolsets/set/TOOLSET.hdlp'] = `name: set\ndescription: a set\ntools: [${op.members.join(', ')}]\n`;
            } else if (op.kind === 'reset' && history.length > op.back) {
              reset = op.back;
            }
          }
          if (reset !== undefined) {
            // the branch forced back to an earlier commit (one the scanner held before, or older than its clone)
            const target = history[history.length - 1 - reset]!;
            await git(work, 'reset', '-q', '--hard', target);
            history.push(target);
            present.clear();
            for (const name of NAMES) if ((await git(work, 'ls-tree', '--name-only', 'HEAD', `tools/${name}`)) !== '') present.add(name);
          } else {
            history.push(await commitFiles(work, files, `step ${step}`));
          }
          await git(work, 'push', '-q', '--force', 'origin', 'main');
          const incremental = await scanner.scan();
          const fresh = await scanOnce(url, { cacheDir: join(temp.path, `fresh-${round}-${step}`) });
          expect(incremental.commit).toBe(history[history.length - 1]);
          expect(comparable(incremental)).toEqual(comparable(fresh));
        }
        await scanner.flush();
        // the packs the scanner wrote are whole (a thin pack's bases appended): git itself reads the clone
        const [source] = await readdir(join(temp.path, `cache-${round}`, 'sources'));
        await git(join(temp.path, `cache-${round}`, 'sources', source!, 'repo'), 'fsck', '--no-progress', '--no-dangling');
      }),
      { numRuns: runs(5) },
    );
  }, propertyTimeout(240_000));
});
