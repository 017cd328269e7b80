import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoundedOutput, cutMarker, execute, type ExecutionContext } from '../../src/executors/index.js';
import { startGatekeeper } from '../../src/gatekeeper/index.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './support/tool-definitions.js';

// Behaviours a mutation pass could break without any test noticing: each test here fails on one such break.

let base: string;
let root: string;
beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'hldp-gaps-')));
  root = join(base, 'root');
  // a sibling whose name starts with the root's: a prefix check without a separator lets it in
  await mkdir(join(base, 'root-other'), { recursive: true });
  await writeFile(join(base, 'root-other', 'secret.txt'), 'outside\n');
  await mkdir(root);
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('BoundedOutput with chunks of any size (property-based)', () => {
  it('keeps exactly the head and the tail of the joined stream', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 600 }),
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 300 }), { minLength: 1, maxLength: 40 }),
        (capacity, chunks) => {
          const output = new BoundedOutput(capacity);
          for (const chunk of chunks) output.push(Buffer.from(chunk));
          const whole = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          const rendered = output.render('base64');
          expect(rendered.totalBytes).toBe(whole.length);
          if (rendered.cutBytes === 0) {
            expect(Buffer.from(rendered.text, 'base64').equals(whole)).toBe(true);
            return;
          }
          const [head, tail] = rendered.text.split(cutMarker(rendered.cutBytes, rendered.totalBytes));
          const headBytes = Buffer.from(head!, 'base64');
          const tailBytes = Buffer.from(tail!, 'base64');
          expect(whole.subarray(0, headBytes.length).equals(headBytes)).toBe(true);
          expect(whole.subarray(whole.length - tailBytes.length).equals(tailBytes)).toBe(true);
          expect(headBytes.length + tailBytes.length + rendered.cutBytes).toBe(whole.length);
        },
      ),
      { numRuns: runs(400) },
    );
  });
});

describe('root confinement against a sibling folder that shares the root name as a prefix', () => {
  it('refuses cwd ../root-other for a shell tool', async () => {
    const tool = makeToolDefinition({ executor: 'shell', shell: { argv: ['cat', 'secret.txt'], cwd: '../root-other' } });
    const result = await execute(tool, {}, { shell: { root } });
    expect(result).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT', output: '' });
  });

  it('refuses the absolute path of the sibling too', async () => {
    const tool = makeToolDefinition({ executor: 'shell', shell: { argv: ['cat', 'secret.txt'], cwd: join(base, 'root-other') } });
    expect(await execute(tool, {}, { shell: { root } })).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
  });
});

describe('the gatekeeper file methods against the sibling folder', () => {
  it.each([
    ['read_file', { path: '../root-other/secret.txt' }],
    ['list_dir', { path: '../root-other' }],
    ['write_file', { path: '../root-other/new.txt', content: 'x' }],
    ['read_file', { path: `${'ROOT'}-other/secret.txt` }],
  ])('refuses %s %j with PATH_OUTSIDE_ROOT', async (method, params) => {
    const gatekeeper = await startGatekeeper({ root });
    try {
      const resolved = Object.fromEntries(Object.entries(params).map(([key, value]) => [key, value.replace('ROOT', root)]));
      const response = await fetch(`${gatekeeper.url}/exec`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gatekeeper.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ method, params: resolved }),
      });
      const json = (await response.json()) as { ok: boolean; code: string; output: string };
      expect(json).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
      expect(json.output).not.toContain('outside');
    } finally {
      await gatekeeper.close();
    }
  });
});

describe('redaction', () => {
  const script = (text: string) => makeToolDefinition({ executor: 'shell', shell: { script: text } });
  const context = (secrets: string[]): ExecutionContext => ({ shell: { root }, otherSecrets: secrets });

  it('replaces every occurrence of a secret, not the first only', async () => {
    const result = await execute(script('echo "a-long-secret-1 and a-long-secret-1 again"'), {}, context(['a-long-secret-1']));
    expect(result.output).toBe('[REDACTED] and [REDACTED] again\n');
  });

  it('replaces a secret that contains another whole, the longer first', async () => {
    const result = await execute(script('echo "token-abcdefgh-extended / token-abcdefgh"'), {}, context(['token-abcdefgh', 'token-abcdefgh-extended']));
    expect(result.output).toBe('[REDACTED] / [REDACTED]\n');
    expect(result.output).not.toContain('extended');
  });
});
