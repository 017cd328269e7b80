import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { join, posix } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { declaredPathRefusal } from '../../src/sandbox/index.js';
import { runs } from '../helpers/property-runs.js';

// Review T, T4: a definition may not be given the host's /tmp or /var/tmp (the user's programs keep their unix
// sockets there), a folder in them, or one holding them, outside the workspace, unless the operator lists it in
// sandbox.ceiling.readable_roots / writable_roots. Declared paths are a repository's to write: `.` and `..`, repeated
// and trailing slashes, symlinked folders on the way, relative paths from a workspace that may itself be in /tmp. The
// rule is checked here against a model that resolves each path on its own: lexically first (as a declaration is
// read), then through the symlinks this test made, which are the only ones on these paths.

const scratch = join(process.cwd(), '.scratch');
mkdirSync(scratch, { recursive: true });
/** a folder outside the host's shared temporary folders, and one inside /tmp */
const outside = realpathSync(mkdtempSync(join(scratch, 'shared-temp-')));
const inTmp = realpathSync(mkdtempSync('/tmp/hldp-shared-temp-'));
afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
  rmSync(inTmp, { recursive: true, force: true });
});

/** every symlink on the paths below, by its path: its target */
const links = new Map<string, string>([
  [join(outside, 'to-tmp'), inTmp],
  [join(outside, 'to-var-tmp'), '/var/tmp'],
  [join(outside, 'to-data'), join(outside, 'data')],
  [join(inTmp, 'to-outside'), join(outside, 'data')],
  [join(inTmp, 'to-ws'), join(inTmp, 'ws')],
  [join(outside, 'ws', 'to-tmp'), '/tmp'],
]);
for (const folder of [join(outside, 'ws'), join(outside, 'data'), join(inTmp, 'ws'), join(inTmp, 'data')]) mkdirSync(folder, { recursive: true });
for (const [path, target] of links) symlinkSync(target, path);

/** The model: `path` from `workspace` as a declaration names it, `..` taken lexically, then each symlink followed. */
function modelReal(path: string, workspace: string): string {
  const parts = posix.resolve(workspace, path).split('/').filter(Boolean);
  let real = '/';
  for (let hops = 0; parts.length > 0; ) {
    real = posix.join(real, parts.shift()!);
    const target = links.get(real);
    if (target === undefined) continue;
    if ((hops += 1) > 40) throw new Error(`a loop at ${real}`);
    parts.unshift(...target.split('/').filter(Boolean));
    real = '/';
  }
  return real;
}

const inside = (path: string, folder: string): boolean => folder === '/' || path === folder || path.startsWith(`${folder}/`);
const SHARED = ['/tmp', '/var/tmp'];

const base = fc.constantFrom('/tmp', '/var/tmp', '/var', '/', outside, inTmp, join(outside, 'ws'), join(inTmp, 'ws'), '.', '..', join(outside, 'to-tmp'), join(outside, 'to-var-tmp'), join(outside, 'to-data'), join(inTmp, 'to-outside'));
const segment = fc.constantFrom('.', '..', '', 'data', 'ws', 'to-tmp', 'to-var-tmp', 'to-data', 'to-outside', 'to-ws', 'x', 'tmp', 'var');
const declared = fc.tuple(base, fc.array(segment, { maxLength: 4 }), fc.boolean()).map(([start, rest, trailing]) => `${[start, ...rest].join('/')}${trailing ? '/' : ''}`);
const roots = fc.subarray(['/tmp', '/var/tmp', inTmp, join(inTmp, 'data'), outside, join(outside, 'to-tmp'), join(outside, 'to-var-tmp')]);

describe('a declared path in the host’s shared /tmp or /var/tmp (review T, T4)', () => {
  it('is refused exactly when it resolves to one, into one or to a folder holding one, outside the workspace, unless the ceiling lists it', () => {
    fc.assert(
      fc.property(fc.constantFrom<'read' | 'write'>('read', 'write'), declared, fc.constantFrom(join(outside, 'ws'), join(inTmp, 'ws')), roots, (kind, path, workspace, ceiling) => {
        const real = modelReal(path, workspace);
        const listed = ceiling.map((root) => modelReal(root, '/')).some((root) => inside(real, root));
        const shared = SHARED.some((folder) => inside(real, folder) || inside(folder, real));
        const refusal = declaredPathRefusal(kind, path, { workspace, hide: [], protect: [], ...(kind === 'read' ? { readableRoots: ceiling } : { writableRoots: ceiling }) });
        // `/` and `/var` are refused first by other rules: the whole file system, a folder holding the host's /var/run
        if (real === '/' || real === '/var') return void expect(refusal).toBeDefined();
        if (shared && !inside(real, workspace) && !listed) expect(refusal).toMatch(/the host's shared \/(var\/)?tmp/);
        else expect(refusal).toBeUndefined();
      }),
      { numRuns: runs(600) },
    );
  });
});
