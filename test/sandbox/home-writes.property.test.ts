import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolSandbox } from '../../src/core/index.js';
import { hostConflict } from '../../src/sandbox/bubblewrap-arguments.js';
import { declaredPathRefusal } from '../../src/sandbox/declared-path-refusal.js';
import { runs } from '../helpers/property-runs.js';

// Review U, U2 and U3: a definition's declared write may land in no home folder of the host outside the workspace
// (the gateway user's $HOME, the run_as user's home), however it is spelt (`..`, `//`, a trailing `/`, `~`, a path
// relative to the workspace, a symlink on the way), unless a root of sandbox.ceiling.writable_roots holds it. Judged
// by the launch's rule (hostConflict) and by `hldp validate`'s (declaredPathRefusal), over a test root:
//   home/            $HOME: bin/, src/, .ssh/, project/ (the workspace, with out -> ../bin), src/linked -> ../../other/go
//   other/go/bin/    the run_as user's home
//   home-link -> home, elsewhere/

let root: string;
let savedHome: string | undefined;
const at = (...names: string[]) => join(root, ...names);
const isInside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);
const SEGMENTS = ['home', 'other', 'project', 'bin', 'go', 'src', '.ssh', 'out', 'linked', 'home-link', 'elsewhere', 'x', '..', '.', ''];

/** Where a declared path lands: the nearest existing folder's real path, the rest appended (the oracle). */
function landing(path: string, workspace: string): string {
  const absolute = path === '~' || path.startsWith('~/') ? join(at('home'), path.slice(1)) : resolve(workspace, path);
  const rest: string[] = [];
  for (let existing = absolute; ; existing = dirname(existing)) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch {
      rest.push(basename(existing));
    }
  }
}

describe('a declared write in a home folder', () => {
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'hldp-home-writes-')));
    for (const folder of ['home/bin', 'home/src', 'home/.ssh', 'home/project', 'other/go/bin', 'elsewhere']) mkdirSync(at(folder), { recursive: true });
    symlinkSync('../bin', at('home', 'project', 'out'));
    symlinkSync('../../other/go', at('home', 'src', 'linked'));
    symlinkSync(at('home'), at('home-link'));
    savedHome = process.env.HOME;
    process.env.HOME = at('home');
  });
  afterAll(() => {
    process.env.HOME = savedHome;
    rmSync(root, { recursive: true, force: true });
  });

  it('is refused outside the workspace unless a ceiling root holds it, at a launch and in hldp validate', () => {
    const declared = fc
      .record({
        start: fc.constantFrom('root', '~', 'workspace'),
        segments: fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 5 }),
        trailing: fc.boolean(),
      })
      .map(({ start, segments, trailing }) => {
        const tail = segments.join('/') + (trailing ? '/' : '');
        return start === 'root' ? `${root}/${tail}` : start === '~' ? `~/${tail}` : tail || '.';
      });
    const roots = fc.subarray([at('home', 'bin'), at('home', 'src'), at('other', 'go')]);
    fc.assert(
      fc.property(declared, roots, (path, writableRoots) => {
        const workspace = at('home', 'project');
        const real = landing(path, workspace);
        const home = [at('home'), at('other')].find((folder) => isInside(real, folder));
        if (home === undefined || isInside(real, workspace)) return;
        const policy: ToolSandbox = { network: false, unix_sockets: false, filesystem: { read: [], write: [path] }, limits: {} as ToolSandbox['limits'] };
        const atLaunch = hostConflict(policy, workspace, [], [process.execPath], { writableRoots, runAsHome: at('other') });
        const inValidate = declaredPathRefusal('write', path, { workspace, hide: [], protect: [], writableRoots, runAsHome: at('other') });
        const held = writableRoots.some((folder) => isInside(real, folder));
        if (!held) {
          expect(atLaunch, `${path} lands at ${real}`).toMatch(/home folder/);
          expect(inValidate, `${path} lands at ${real}`).toMatch(/home folder/);
        } else {
          // a ceiling root is never a home, a folder holding one or a dot-entry: what it holds may be written
          expect(atLaunch, `${path} lands at ${real}`).toBeUndefined();
          expect(inValidate, `${path} lands at ${real}`).toBeUndefined();
        }
      }),
      { numRuns: runs(600) },
    );
  });
});
