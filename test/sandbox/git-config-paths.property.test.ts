import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configEntries } from '../../src/sandbox/git-config-paths.js';
import { makeTempDir } from '../helpers/git.js';
import { runs } from '../helpers/property-runs.js';

// configEntries reads config files a user (or a tool, before the folder was guarded) wrote: what it finds there is
// what the sandbox makes read-only, so it must read them as git does, and never throw or hang on any text.

let temp: { path: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  temp = await makeTempDir('hldp-config-entries-');
});
afterAll(async () => {
  await temp.cleanup();
});

/** git's own reading of a config file: `section.key` and value pairs, in order (a key without `=` has the value ''). */
function gitEntries(text: string): { key: string; value: string }[] | undefined {
  const file = join(temp.path, 'config');
  writeFileSync(file, text);
  try {
    const listed = execFileSync('git', ['config', '--file', file, '--null', '--list'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return listed.split('\0').slice(0, -1).map((record) => {
      const newline = record.indexOf('\n');
      return newline < 0 ? { key: record, value: '' } : { key: record.slice(0, newline), value: record.slice(newline + 1) };
    });
  } catch {
    return undefined; // git refuses the file: it reads nothing from it, and no launch depends on what it would
  }
}

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,6}$/);
const valueText = fc.array(fc.constantFrom('a', 'B', ' ', '\t', '"', '\\"', '\\\\', '\\n', '\\t', '#', ';', '/', '.', '~', '\\\n'), { maxLength: 8 }).map((parts) => parts.join(''));
const header = fc.oneof(
  word.map((name) => `[${name}]`),
  fc.tuple(word, fc.stringMatching(/^[a-zA-Z0-9:/~. -]{0,8}$/)).map(([name, sub]) => `[${name} "${sub}"]`),
  fc.tuple(word, word).map(([name, sub]) => `[${name}.${sub}]`),
);
const line = fc.oneof(
  header,
  fc.tuple(fc.constantFrom('', ' ', '\t'), fc.oneof(word, fc.constantFrom('hooksPath', 'path', 'HOOKSPATH')), fc.constantFrom('=', ' = ', '\t=\t'), valueText).map(([indent, key, equals, value]) => `${indent}${key}${equals}${value}`),
  fc.tuple(fc.constantFrom('', ' '), word).map(([indent, key]) => `${indent}${key}`),
  fc.constantFrom('', '# a comment', '; another', '  '),
);
const config = fc.tuple(header, fc.array(line, { maxLength: 8 })).map(([first, lines]) => `${[first, ...lines].join('\n')}\n`);

describe('configEntries', () => {
  it('reads the entries git reads, wherever git reads the file at all', () => {
    fc.assert(
      fc.property(config, (text) => {
        const expected = gitEntries(text);
        if (expected !== undefined) expect(configEntries(text)).toEqual(expected);
      }),
      { numRuns: runs(150) },
    );
  });

  it('returns, without throwing, on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        expect(Array.isArray(configEntries(text))).toBe(true);
      }),
      { numRuns: runs(2000) },
    );
  });
});
