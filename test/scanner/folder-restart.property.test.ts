import fc from 'fast-check';
import { existsSync } from 'node:fs';
import { mkdir, rename, stat, symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';
import { comparableIndex, countingListings } from '../helpers/warm-cache.js';

// Issue #18: a plain folder's scanner, restarted (a new process over the same cache, reading the folder's kept record)
// or rescanning, reads only the files whose stat changed. Whatever the changes between scans (a definition written,
// rewritten to the same size with its modification time put back, broken, removed, its folder removed or renamed, a
// definition swapped for a link out of the folder or for a folder, one over the size limit, a tool folder made a link
// out, a toolset or a policy written or removed), read at once (every stat racy) or a minute later (every stat
// vouching), the index must be exactly what a fresh scan of the folder gives, and patched from the record's diff: the
// scanner never lists every entry.

const NAMES = ['alpha', 'beta', 'gamma', 'delta'];
// all of one length: a rewrite keeps the file's size
const INTENTS = ['reads aaaa', 'reads bbbb', 'reads cccc'];
// definitions over it are refused unread
const LIMIT = 2048;

type Operation =
  | { kind: 'put' | 'same-size'; name: string; intent: string }
  | { kind: 'break' | 'unlink' | 'remove' | 'link-out' | 'folder-in' | 'too-large' | 'folder-link-out'; name: string }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'toolset'; members: string[] | null }
  | { kind: 'policy'; present: boolean };

const name = fc.constantFrom(...NAMES);
const intent = fc.constantFrom(...INTENTS);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('put' as const, 'same-size' as const), name, intent }),
  fc.record({ kind: fc.constantFrom('break' as const, 'unlink' as const, 'remove' as const, 'link-out' as const, 'folder-in' as const, 'too-large' as const, 'folder-link-out' as const), name }),
  fc.record({ kind: fc.constant('rename' as const), from: name, to: name }),
  fc.record({ kind: fc.constant('toolset' as const), members: fc.option(fc.uniqueArray(name, { maxLength: 3 })) }),
  fc.record({ kind: fc.constant('policy' as const), present: fc.boolean() }),
);
/** One change's operations, whether the scanner is restarted before it scans, and whether a minute has passed. */
const step = fc.record({ operations: fc.array(operation, { minLength: 1, maxLength: 3 }), restart: fc.boolean(), later: fc.boolean() });

const POLICY = ['name: writes', 'author: TEST-001', 'why: every write needs a person', 'approval:', '  - tools: [alpha]', '    decision: approve', '    reason: a write needs a person'].join('\n');

async function apply(root: string, outside: string, op: Operation): Promise<void> {
  const folder = (tool: string): string => join(root, 'tools', tool);
  const definition = (tool: string): string => join(folder(tool), 'TOOL.hdlp');
  const replace = async (tool: string): Promise<boolean> => {
    if (!existsSync(folder(tool))) return false;
    await writeFiles(root, { [`tools/${tool}/TOOL.hdlp`]: null });
    return true;
  };
  if (op.kind === 'put') {
    await writeFiles(root, { [`tools/${op.name}`]: null, [`tools/${op.name}/TOOL.hdlp`]: makeToolYaml(op.name, { intent: op.intent }) });
    // times of whole seconds, as a coarse file system stamps them: a rewrite can put them back exactly
    const second = Math.floor((await stat(definition(op.name))).mtimeMs / 1000);
    await utimes(definition(op.name), second, second);
  } else if (op.kind === 'same-size') {
    const before = await stat(definition(op.name)).catch(() => undefined);
    if (!before?.isFile()) return;
    // another content of the same size, its modification time put back: only the change time tells
    await writeFiles(root, { [`tools/${op.name}/TOOL.hdlp`]: makeToolYaml(op.name, { intent: op.intent }) });
    await utimes(definition(op.name), before.mtime, before.mtime);
  } else if (op.kind === 'break' && (await replace(op.name))) await writeFiles(root, { [`tools/${op.name}/TOOL.hdlp`]: `name: ${op.name}\ndisplay: [broken\n` });
  else if (op.kind === 'unlink') await writeFiles(root, { [`tools/${op.name}/TOOL.hdlp`]: null });
  else if (op.kind === 'remove') await writeFiles(root, { [`tools/${op.name}`]: null });
  else if (op.kind === 'link-out' && (await replace(op.name))) await symlink(join(outside, `${op.name}.hdlp`), definition(op.name));
  else if (op.kind === 'folder-in' && (await replace(op.name))) await mkdir(definition(op.name));
  else if (op.kind === 'too-large' && (await replace(op.name))) await writeFiles(root, { [`tools/${op.name}/TOOL.hdlp`]: makeToolYaml(op.name, { description: 'x'.repeat(LIMIT) }) });
  else if (op.kind === 'folder-link-out') {
    await writeFiles(root, { [`tools/${op.name}`]: null });
    await symlink(join(outside, 'tools', op.name), folder(op.name));
  } else if (op.kind === 'rename' && existsSync(folder(op.from)) && !existsSync(folder(op.to))) await rename(folder(op.from), folder(op.to));
  else if (op.kind === 'toolset') {
    await writeFiles(root, { 'toolsets/set/TOOLSET.hdlp': op.members && `name: set\ndescription: a set\ntools: [${op.members.join(', ')}]\nauthor: TEST-001\nwhy: tests\n` });
  } else if (op.kind === 'policy') await writeFiles(root, { 'policies/writes.hdlp': op.present ? POLICY : null });
}

let temp: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  temp = await makeTempDir('hldp-folder-restart-property-');
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await temp.cleanup();
});

describe('a Scanner over a plain folder, restarted and rescanning', () => {
  let round = 0;

  it('holds after every change exactly the index a fresh scan of the folder builds, never listing every entry', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 6 }), async (steps) => {
        round++;
        const root = join(temp.path, `folder-${round}`);
        const outside = join(temp.path, `outside-${round}`);
        const cacheDir = join(temp.path, `cache-${round}`);
        const files: Record<string, string> = {};
        for (const tool of NAMES) {
          files[`${tool}.hdlp`] = makeToolYaml(tool, { intent: 'reads from outside' });
          files[`tools/${tool}/TOOL.hdlp`] = makeToolYaml(tool, { intent: 'from a folder outside' });
        }
        await writeFiles(outside, files);
        for (const tool of ['alpha', 'beta']) await apply(root, outside, { kind: 'put', name: tool, intent: INTENTS[0]! });
        // the clock of the snapshots: the real one (every file changed within the racy window) or minutes on
        const realNow = (): number => performance.timeOrigin + performance.now();
        vi.useFakeTimers({ toFake: ['Date'], now: realNow() });
        const counted = { listings: 0 };
        const open = (): Scanner => {
          const opened = new Scanner({ repo: root, cacheDir, maxDefinitionBytes: LIMIT });
          countingListings(opened, counted);
          return opened;
        };
        let scanner = open();
        await scanner.scan();
        // the cold scan lists its entries once; the others patch
        counted.listings = 0;
        try {
          for (const [at, { operations, restart, later }] of steps.entries()) {
            for (const op of operations) await apply(root, outside, op);
            vi.setSystemTime(later ? realNow() + 60_000 * (at + 1) : realNow());
            if (restart) {
              await scanner.flush();
              scanner = open();
            }
            const index = await scanner.scan();
            const fresh = await scanOnce(root, { cacheDir: join(temp.path, `fresh-${round}-${at}`), maxDefinitionBytes: LIMIT });
            expect(index.commit).toBe(fresh.commit);
            expect(comparableIndex(index)).toEqual(comparableIndex(fresh));
            expect(counted.listings).toBe(0);
          }
        } finally {
          await scanner.flush();
          vi.useRealTimers();
        }
      }),
      { numRuns: runs(25) },
    );
  }, propertyTimeout(300_000));
});
