import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEntry } from '../../src/scanner/build-index.js';
import { settledByHistory } from '../../src/scanner/name-history.js';
import { walkClaims } from '../../src/scanner/sources/claim-history.js';
import { ObjectReader } from '../../src/scanner/sources/object-reader.js';
import { PackStore } from '../../src/scanner/sources/pack-store.js';
import { makeTempDir, makeToolYaml } from '../helpers/git.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';

// Review Z4, F3b: at a cold start git history names the case twin that keeps a name; a server that watched the branch
// kept the one that held it at the pushes it saw. The rule must never name a twin another server could have kept: over
// every first-parent history of up to 7 commits in which `tools/deploy/` and `tools/Deploy/` come and go (both there at
// the last), and every set of earlier commits a server may have seen (one push each, its first scan itself a cold start
// where a clash had no holder), a twin history names is the one every such server holds at the last commit; otherwise
// history says neither (closed). A real repository (git fast-import) and the real walk and verdict.

type State = 'none' | 'deploy' | 'Deploy' | 'both';
const PATHS = { deploy: 'tools/deploy/TOOL.hdlp', Deploy: 'tools/Deploy/TOOL.hdlp' } as const;
const CONTENT = { deploy: makeToolYaml('deploy', { intent: 'says reviewed' }), Deploy: makeToolYaml('Deploy', { intent: 'says newcomer' }), base: makeToolYaml('base') };
const holds = (state: State): Array<'deploy' | 'Deploy'> => (state === 'both' ? ['deploy', 'Deploy'] : state === 'none' ? [] : [state]);

let temp: { path: string; cleanup: () => Promise<void> };
let made = 0;
beforeAll(async () => {
  temp = await makeTempDir('hldp-twin-property-');
});
afterAll(() => temp.cleanup());

// one repository per history: a commit per state, on main, oldest first; returns the git dir and the commits
function repositoryOf(states: readonly State[]): { gitdir: string; commits: string[] } {
  const repo = join(temp.path, `r${made++}`);
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  const blob = (mark: string, text: string): string => `blob\nmark :${mark}\ndata ${Buffer.byteLength(text)}\n${text}\n`;
  let stream = blob('1', CONTENT.base) + blob('2', CONTENT.deploy) + blob('3', CONTENT.Deploy);
  states.forEach((state, at) => {
    stream += `commit refs/heads/main\ncommitter a <a@b> ${1_700_000_000 + at} +0000\ndata 3\nc${at}\ndeleteall\nM 100644 :1 tools/base/TOOL.hdlp\n`;
    for (const twin of holds(state)) stream += `M 100644 :${twin === 'deploy' ? 2 : 3} ${PATHS[twin]}\n`;
    stream += '\n';
  });
  execFileSync('git', ['-C', repo, 'fast-import', '--quiet'], { input: stream });
  const commits = execFileSync('git', ['-C', repo, 'rev-list', '--reverse', 'main'], { encoding: 'utf8' }).trim().split('\n');
  return { gitdir: join(repo, '.git'), commits };
}

const ENTRIES = (['deploy', 'Deploy'] as const).map((name) => parseEntry({ path: PATHS[name], folder: name, oid: name, content: Buffer.from(CONTENT[name]) }));
const NOTHING = { name: () => undefined, alias: () => undefined, toolset: () => undefined };

// who a start with an empty cache at that commit (both there) serves `deploy` as: history's claim, none where history
// fails closed, and at a tie the rules after it (a folder that is its name, then path order: tools/Deploy/ first)
async function coldStart(gitdir: string, commit: string): Promise<string | undefined> {
  const objects = new ObjectReader(gitdir, new PackStore(gitdir));
  const settled = await settledByHistory(NOTHING, { tools: new Set(['deploy']), toolsets: new Set() }, ENTRIES, (claims) => walkClaims(objects, gitdir, commit, claims));
  const held = settled?.name('deploy');
  if (held !== undefined) return held;
  const note = settled?.note?.('name', 'deploy');
  if (note && 'closed' in note && note.closed) return undefined;
  return PATHS.Deploy;
}

const history = fc.array(fc.constantFrom<State>('none', 'deploy', 'Deploy', 'both'), { minLength: 1, maxLength: 6 }).map((states) => [...states, 'both' as State]);

describe('case twins settled by git history at a cold start', () => {
  it('names a twin only where every server that watched some of the pushes holds that twin at the last commit', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (states) => {
        const { gitdir, commits } = repositoryOf(states);
        const last = states.length - 1;
        const cold = new Map<number, string | undefined>();
        const coldAt = async (at: number): Promise<string | undefined> => {
          if (!cold.has(at)) cold.set(at, await coldStart(gitdir, commits[at]!));
          return cold.get(at);
        };
        const named = await coldAt(last);
        if (named === undefined) return;
        // every set of earlier commits seen, in order, then the last one
        for (let seen = 0; seen < 1 << last; seen++) {
          let holder: string | undefined;
          for (let at = 0; at <= last; at++) {
            if (at < last && (seen & (1 << at)) === 0) continue;
            const here = holds(states[at]!).map((twin) => PATHS[twin] as string);
            if (holder !== undefined && here.includes(holder)) continue;
            holder = here.length === 2 ? await coldAt(at) : here[0];
          }
          const watched = states.flatMap((state, at) => (at === last || (seen & (1 << at)) !== 0 ? [`${at}:${state}`] : []));
          expect(holder, `history ${states.join(' → ')}, a server that saw ${watched.join(', ')}`).toBe(named);
        }
      }),
      { numRuns: runs(60) },
    );
  }, propertyTimeout(600_000));
});
