// Review Z14, Z14-3. A definition under the 1 MiB limit written as 90,000 keys (`u0: 1` … `u89999: 1`) took 3.5 minutes
// of CPU to validate — and as long on a small registry's scan, on `hldp serve`'s event loop: yaml's own duplicate-key
// check compares each key with every earlier one of its mapping, and each of 90,000 unknown fields was told, its
// place found by a walk of the mapping apiece. The keys are now checked for twins with a set (the same errors:
// `test/scanner/duplicate-keys.property.test.ts`), and the first 20 unknown fields are told, the last counting the rest.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const HEAD = ['name: many', 'display: many', 'intent: a definition of many keys', 'method: run', 'executor: shell', 'params_schema: {}', 'shell: { argv: [echo, hi] }', 'author: A', 'created: 2026-12-06', 'why: review Z14-3'];
let home: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-many-keys-');
  await mkdir(join(home.path, 'tools', 'many'), { recursive: true });
  const keys = Array.from({ length: 90_000 }, (_, i) => `u${i}: 1`);
  await writeFile(join(home.path, 'tools', 'many', 'TOOL.hdlp'), [...HEAD, ...keys, ''].join('\n'));
  // a twin key among many: still told, at its line, with where it was first written
  await mkdir(join(home.path, 'tools', 'twin'), { recursive: true });
  const twin = [...HEAD.map((line) => line.replace(/many/g, 'twin')), ...Array.from({ length: 20_000 }, (_, i) => `params_schema_${i}: 1`), 'why: again', ''];
  await writeFile(join(home.path, 'tools', 'twin', 'TOOL.hdlp'), twin.join('\n'));
});
afterAll(async () => home?.cleanup());

describe('hldp validate of a definition of 90,000 keys (review Z14, Z14-3)', () => {
  it('answers, telling the first 20 unknown fields and how many more, and a twin key among 20,000 at its line', { timeout: 180_000 }, async () => {
    const run = await runCli(['validate', home.path, '--json'], { cwd: home.path, timeoutMs: 150_000 });
    expect(run.code, run.stderr).toBe(1);
    const errors = (JSON.parse(run.stdout) as { errors: Array<{ file: string; line: number; code: string; message: string }> }).errors;
    const many = errors.filter((error) => error.file.endsWith('tools/many/TOOL.hdlp'));
    expect(many).toHaveLength(20);
    expect(many[0]).toMatchObject({ line: HEAD.length + 1, code: 'SCHEMA_VIOLATION' });
    expect(many[0]!.message).toMatch(/^unknown field 'u0'/);
    expect(many[19]!.message).toMatch(/^unknown field 'u19'.*; and 89980 more unknown fields$/);
    const twin = errors.filter((error) => error.file.endsWith('tools/twin/TOOL.hdlp'));
    expect(twin).toEqual([expect.objectContaining({ line: HEAD.length + 20_000 + 1, code: 'YAML_SYNTAX', message: expect.stringContaining(`key 'why' is written twice in one mapping (first at line ${HEAD.length}): keep one`) })]);
  });
});
