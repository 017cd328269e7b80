import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachTool, type ToolIndex } from '../../src/core/index.js';
import { createMatcher, MAX_LIMIT, searchIndexFiles, type Matcher } from '../../src/matcher/index.js';
import { Scanner } from '../../src/scanner/index.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';

// Issue #18: a process started onto a commit newer than its scan cache's updates the search index kept for the older
// commit with the tools changed, rather than building it from every tool. Whatever the changes (tools added, removed,
// renamed, their texts and aliases edited), however many commits are skipped, and restart after restart (each reading
// what the one before kept), the matcher answers exactly as one built afresh over the same tools, calibration included.

const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
const WORDS = ['weather', 'invoice', 'ledger', 'parcel', 'harbour', 'printer', 'ticket', 'payroll'];
const ALIASES = ['[]', '["weather desk"]', '["parcel helper", pc]', '["ledger book"]'];
const INTENTS = ['check the weather', 'weigh a parcel at the harbour', 'open the ledger book', 'print the payroll ticket', 'nothing like any tool'];

type Operation = { kind: 'put'; name: string; word: number; aliases: string } | { kind: 'remove'; name: string } | { kind: 'rename'; from: string; to: string } | { kind: 'filler'; at: number; word: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), name: fc.constantFrom(...NAMES), word: fc.nat(WORDS.length - 1), aliases: fc.constantFrom(...ALIASES) }),
  fc.record({ kind: fc.constant('remove' as const), name: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('rename' as const), from: fc.constantFrom(...NAMES), to: fc.constantFrom(...NAMES) }),
  fc.record({ kind: fc.constant('filler' as const), at: fc.nat(29), word: fc.nat(WORDS.length - 1) }),
);
/** One commit's operations; whether a process starts onto it (else it is skipped), and whether that one prepares as a server does. */
const step = fc.record({ operations: fc.array(operation, { minLength: 1, maxLength: 3 }), start: fc.boolean(), lettingGo: fc.boolean() });

const definition = (name: string, word: number, aliases = '[]'): string =>
  makeToolYaml(name, { intent: `handle the ${WORDS[word]} of ${name}`, examples: `["show the ${WORDS[(word + 1) % WORDS.length]} of ${name}", "open the ${WORDS[word]} list"]`, aliases });

function answers(matcher: Matcher): unknown[] {
  return INTENTS.map((intent) => ({ explained: matcher.explainIntent(intent), result: matcher.matchIntent(intent, { limit: MAX_LIMIT }) }));
}

function builtWhole(index: ToolIndex): ToolIndex {
  return { ...Object.fromEntries(Object.entries(Object.getOwnPropertyDescriptors(index)).filter(([key]) => key !== 'tools').map(([key, descriptor]) => [key, descriptor.value])), tools: [...eachTool(index)] } as ToolIndex;
}

let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  temp = await makeTempDir('hldp-restart-newer-property-');
});
afterAll(() => temp.cleanup());

describe('a search index kept on disk, at starts onto newer commits', () => {
  let round = 0;

  it('is updated from the one kept for the older commit into exactly what a fresh build answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), async (steps) => {
        round++;
        const repo = await initRepository(join(temp.path, `repo-${round}`));
        const cacheDir = join(temp.path, `cache-${round}`);
        const searchDir = join(temp.path, `search-${round}`);
        const present = new Set<string>(['alpha', 'beta']);
        const start: Record<string, string> = {};
        for (let at = 0; at < 30; at++) start[`tools/filler-${at}/TOOL.hdlp`] = definition(`filler-${at}`, at % WORDS.length);
        for (const name of present) start[`tools/${name}/TOOL.hdlp`] = definition(name, 0);
        await commitFiles(repo, start);
        const first = new Scanner({ repo, cacheDir });
        createMatcher(await first.scan(), { searchFiles: searchIndexFiles(searchDir) }).prepare();
        await first.flush();
        for (const [number, { operations, start: started, lettingGo }] of steps.entries()) {
          const files: Record<string, string | null> = {};
          for (const op of operations) {
            if (op.kind === 'put') {
              files[`tools/${op.name}/TOOL.hdlp`] = definition(op.name, op.word, op.aliases);
              present.add(op.name);
            } else if (op.kind === 'remove' && present.has(op.name)) {
              files[`tools/${op.name}/TOOL.hdlp`] = null;
              present.delete(op.name);
            } else if (op.kind === 'rename' && present.has(op.from) && !present.has(op.to)) {
              files[`tools/${op.from}/TOOL.hdlp`] = null;
              files[`tools/${op.to}/TOOL.hdlp`] = definition(op.to, number % WORDS.length);
              present.delete(op.from);
              present.add(op.to);
            } else if (op.kind === 'filler') {
              files[`tools/filler-${op.at}/TOOL.hdlp`] = definition(`filler-${op.at}`, op.word);
            }
          }
          await commitFiles(repo, { ...files, [`notes/${number}.md`]: `step ${number}\n` }, `step ${number}`);
          if (!started) continue;
          // a new process onto the commit: the scan patched from the latest cached, the search index from its kept file
          const scanner = new Scanner({ repo, cacheDir });
          const index = await scanner.scan();
          await scanner.flush();
          const matcher = createMatcher(index, { searchFiles: searchIndexFiles(searchDir) });
          if (lettingGo) await matcher.prepareLettingGo();
          else matcher.prepare();
          expect(answers(matcher)).toEqual(answers(createMatcher(builtWhole(index)).prepare()));
        }
      }),
      { numRuns: runs(10) },
    );
  }, propertyTimeout(300_000));
});
