import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readBenchData } from '../../bench/match/bench-data.js';
import { prepareWorld } from '../../bench/match/world.js';
import { makeTempDir } from '../helpers/git.js';
import { track } from '../helpers/run-cli.js';

// issue #11: `bench:match` must take any file in its format without help. It crashed on a request without
// `candidates`, wrote `str`/`int`/`float`/`bool` parameters without a type, and stamped every tool `author: bfcl-v4`.
const RUN = fileURLToPath(new URL('../../bench/match/run.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const FILE = {
  tools: [
    {
      name: 'convert_temperature',
      description: 'Convert a temperature between Celsius and Fahrenheit.',
      params: [
        { name: 'value', type: 'float', required: true },
        { name: 'unit', type: 'str', enum: ['C', 'F'] },
      ],
      author: 'someone-else',
    },
    { name: 'count_words', description: 'Count the words of a text.', params: [{ name: 'text', type: 'str' }, { name: 'unique', type: 'bool' }] },
    { name: 'roll_dice', description: 'Roll dice and sum the faces.', params: [{ name: 'times', type: 'int' }, { name: 'sides', type: 'Long' }] },
  ],
  queries: [
    { id: 'q1', text: 'convert 30 degrees celsius to fahrenheit', gold: ['convert_temperature'] },
    { id: 'q2', text: 'how many words are in this text', gold: ['count_words'], lang: 'en' },
    { id: 'q3', text: 'book a flight to Lisbon', gold: [] },
    { id: 'q4', text: 'roll two dice', gold: ['roll_dice'], candidates: ['roll_dice', 'count_words'] },
  ],
};

let temp: { path: string; cleanup: () => Promise<void> };
let file: string;
beforeEach(async () => {
  temp = await makeTempDir();
  file = join(temp.path, 'small-set.json');
  await writeFile(file, JSON.stringify(FILE));
});
afterEach(() => temp.cleanup());

describe('bench:match on a file of its format that is not BFCL', () => {
  it('runs to a report when requests have no candidates (each is then asked against every tool)', async () => {
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', RUN, '--quick', '--data', file],
        { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 25_000, killSignal: 'SIGKILL' },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
      track(child);
    });
    expect(run.stderr).not.toMatch(/not iterable|TypeError/);
    expect(run.code).toBe(0);
    const set = JSON.parse(run.stdout).sets['small-set'];
    expect(set).toMatchObject({ tools: 3, queries: 4 });
    expect(set.matcher.all.decision.no_tool).toBe(1);
    expect(Object.keys(set.matcher.by_language).sort()).toEqual(['en', 'und']);
  });

  it('writes each parameter with its JSON type, and the author the file gives (else "benchmark")', async () => {
    const data = await readBenchData(file);
    expect(data.queries.map((query) => query.candidates.length)).toEqual([3, 3, 3, 2]);
    const { world } = await prepareWorld(data);
    const tool = (name: string) => world.toolsById.get(name)!;
    const types = (name: string) => Object.fromEntries(Object.entries(tool(name).params_schema.properties as Record<string, { type?: string }>).map(([key, value]) => [key, value.type]));
    expect(types('convert_temperature')).toEqual({ value: 'number', unit: 'string' });
    expect(types('count_words')).toEqual({ text: 'string', unique: 'boolean' });
    expect(types('roll_dice')).toEqual({ times: 'integer', sides: 'integer' });
    expect([tool('convert_temperature').author, tool('count_words').author]).toEqual(['someone-else', 'benchmark']);
  });
});
