import fc from 'fast-check';
import { existsSync } from 'node:fs';
import { rename, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ToolIndex } from '../../src/core/index.js';
import { Scanner, scanOnce } from '../../src/scanner/index.js';
import { makeTempDir, makeToolYaml, writeFiles } from '../helpers/git.js';

// A running Scanner over a plain folder passes over each definition whose stat vouches for it, lists a kind's folders
// again only when that folder's stat changed, and hands the scanner what changed since its last snapshot: after every
// change (a tool written, rewritten to the same size with its times put back, broken, its definition removed, its
// folder removed or renamed, a toolset or a policy written or removed), read at once (every stat racy) or a minute
// later (every stat vouching), its index must be exactly what a fresh scan of the folder gives.

const NAMES = ['alpha', 'beta', 'gamma', 'delta'];
// all of one length: a rewrite keeps the file's size
const INTENTS = ['reads aaaa', 'reads bbbb', 'reads cccc'];

type Operation =
  | { kind: 'put'; name: string; intent: string }
  | { kind: 'same-size'; name: string; intent: string }
  | { kind: 'break'; name: string }
  | { kind: 'unlink'; name: string }
  | { kind: 'remove'; name: string }
  | { kind: 'rename'; from: string; to: string }
  | { kind: 'toolset'; members: string[] | null }
  | { kind: 'policy'; present: boolean };

const name = fc.constantFrom(...NAMES);
const intent = fc.constantFrom(...INTENTS);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), name, intent }),
  fc.record({ kind: fc.constant('same-size' as const), name, intent }),
  fc.record({ kind: fc.constant('break' as const), name }),
  fc.record({ kind: fc.constant('unlink' as const), name }),
  fc.record({ kind: fc.constant('remove' as const), name }),
  fc.record({ kind: fc.constant('rename' as const), from: name, to: name }),
  fc.record({ kind: fc.constant('toolset' as const), members: fc.option(fc.uniqueArray(name, { maxLength: 3 })) }),
  fc.record({ kind: fc.constant('policy' as const), present: fc.boolean() }),
);
const step = fc.record({ operations: fc.array(operation, { minLength: 1, maxLength: 2 }), later: fc.boolean() });

const POLICY = ['name: writes', 'author: TEST-001', 'why: every write needs a person', 'approval:', '  - tools: [alpha]', '    decision: approve', '    reason: a write needs a person'].join('\n');

/** The index without the moment it was made: what a rescan and a fresh scan of one folder must agree on. */
function comparable(index: ToolIndex): object {
  const { scanned_at: _scannedAt, ...rest } = index;
  return JSON.parse(JSON.stringify({ ...rest, tools: index.tools }));
}

async function apply(root: string, op: Operation): Promise<void> {
  const definition = (tool: string): string => join(root, 'tools', tool, 'TOOL.hdlp');
  if (op.kind === 'put') {
    await writeFiles(root, { [`tools/${op.name}/TOOL.hdlp`]: makeToolYaml(op.name, { intent: op.intent }) });
    // times of whole seconds, as a coarse file system stamps them: a rewrite can put them back exactly
    const second = Math.floor((await stat(definition(op.name))).mtimeMs / 1000);
    await utimes(definition(op.name), second, second);
  } else if (op.kind === 'same-size' && existsSync(definition(op.name))) {
    // another content of the same size, its modification time put back: only the change time tells
    const before = await stat(definition(op.name));
    await writeFiles(root, { [`tools/${op.name}/TOOL.hdlp`]: makeToolYaml(op.name, { intent: op.intent }) });
    await utimes(definition(op.name), before.mtimeMs / 1000, before.mtimeMs / 1000);
  } else if (op.kind === 'break' && existsSync(join(root, 'tools', op.name))) await writeFiles(root, { [`tools/${op.name}/TOOL.hdlp`]: `name: ${op.name}\ndisplay: [broken\n` });
  else if (op.kind === 'unlink') await writeFiles(root, { [`tools/${op.name}/TOOL.hdlp`]: null });
  else if (op.kind === 'remove') await writeFiles(root, { [`tools/${op.name}`]: null });
  else if (op.kind === 'rename' && existsSync(join(root, 'tools', op.from)) && !existsSync(join(root, 'tools', op.to))) await rename(join(root, 'tools', op.from), join(root, 'tools', op.to));
  else if (op.kind === 'toolset') {
    await writeFiles(root, { 'toolsets/set/TOOLSET.hdlp': op.members && `name: set\ndescription: a set\ntools: [${op.members.join(', ')}]\nauthor: TEST-001\nwhy: tests\n` });
  } else if (op.kind === 'policy') await writeFiles(root, { 'policies/writes.hdlp': op.present ? POLICY : null });
}

let temp: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  temp = await makeTempDir('hldp-folder-rescan-property-');
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await temp.cleanup();
});

describe('a Scanner rescanning a plain folder', () => {
  let round = 0;

  it('holds after every change exactly the index a fresh scan of the folder builds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 6 }), async (steps) => {
        round++;
        const root = join(temp.path, `folder-${round}`);
        for (const tool of ['alpha', 'beta']) await apply(root, { kind: 'put', name: tool, intent: INTENTS[0]! });
        // the clock of the snapshots: the real one (every file changed within the racy window) or a minute on
        const realNow = (): number => performance.timeOrigin + performance.now();
        vi.useFakeTimers({ toFake: ['Date'], now: realNow() });
        const scanner = new Scanner({ repo: root, cacheDir: join(temp.path, `cache-${round}`) });
        await scanner.scan();
        try {
          for (const [at, { operations, later }] of steps.entries()) {
            for (const op of operations) await apply(root, op);
            vi.setSystemTime(later ? realNow() + 60_000 * (at + 1) : realNow());
            const incremental = await scanner.scan();
            const fresh = await scanOnce(root, { cacheDir: join(temp.path, `fresh-${round}-${at}`) });
            expect(comparable(incremental)).toEqual(comparable(fresh));
          }
        } finally {
          await scanner.flush();
          vi.useRealTimers();
        }
      }),
      { numRuns: 25 },
    );
  }, 240_000);
});
