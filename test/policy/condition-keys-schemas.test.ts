// Review Z17: the check that a policy's `when:` keys are params its tools take (U9-12) read only a params schema's top
// `properties` and its direct allOf/anyOf/oneOf. Z17-1: a tool whose params are declared the 2020-12 way — `$ref` to
// `$defs`, `unevaluatedProperties: false` — was said to take no params, so a correct policy conditioning on `path` was
// refused whole, and with it every call of every tool. Z17-3: under a full JSON Schema without
// `additionalProperties: false` (JSON Schema's default, the usual hand-written and imported form), `pth:` for `path:`
// was only a warning: the deny matched nothing and the write to the protected path went through. Real git repository,
// real `hldp validate` and `hldp call` processes.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { policyRepository } from './support.js';

const tool = (schema: string[]) => [
  'name: write-note', 'display: Write a note', 'intent: write a note file in the workspace', 'method: write_file', 'executor: gatekeeper',
  'params_schema:', ...schema.map((line) => `  ${line}`), 'author: TEST-001', 'created: 2026-12-01', 'why: agents keep notes',
].join('\n');

// the 2020-12 idiom: the params object's properties live in $defs, reached by $ref, closed by unevaluatedProperties
const BY_REFERENCE = tool([
  'type: object', "$ref: '#/$defs/note'", 'unevaluatedProperties: false', '$defs:', '  note:', '    type: object',
  '    properties:', '      path: { type: string }', '      content: { type: string }', '      create_dirs: { type: boolean }', '    required: [path, content]',
]);
// a full JSON Schema, open as JSON Schema is by default
const OPEN = tool([
  'type: object', 'properties:', '  path: { type: string }', '  content: { type: string }', '  create_dirs: { type: boolean }', 'required: [path, content]',
]);
const policy = (key: string) => [
  'name: notes', 'author: TEST-001', 'why: private notes stay private', 'approval:',
  '  - tools: [write-note]', `    when: { ${key}: { glob: "private/**" } }`, '    decision: deny', '    reason: no private notes',
].join('\n');

async function registry(files: Record<string, string>) {
  const { repo, temp } = await policyRepository(files);
  const workspace = join(temp.path, 'workspace');
  await mkdir(workspace, { recursive: true });
  const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: workspace };
  const validate = () => runCli(['validate', '.', '--json'], { cwd: repo, env });
  const write = (path: string) => runCli(['call', 'write-note', '--repo', repo, '--params', JSON.stringify({ path, content: 'secret', create_dirs: true })], { env });
  return { workspace, temp, validate, write };
}

/** The registry of `files` for the tests of the describe it is called in: made before them, removed after. */
function registryForTests(files: Record<string, string>): () => Awaited<ReturnType<typeof registry>> {
  let setup: Awaited<ReturnType<typeof registry>> | undefined;
  beforeAll(async () => {
    setup = await registry(files);
  }, 120_000);
  afterAll(() => setup?.temp.cleanup());
  return () => setup!;
}

describe("a policy over a tool whose params are declared through $ref and $defs (review Z17, Z17-1)", () => {
  const current = registryForTests({ 'tools/write-note/TOOL.hdlp': BY_REFERENCE, 'policies/notes.hdlp': policy('path') });

  it('passes hldp validate: path is a param the tool takes', { timeout: 60_000 }, async () => {
    const setup = current();
    const validate = await setup.validate();
    const { errors } = JSON.parse(validate.stdout) as { errors: Array<{ code: string }> };
    expect(errors.filter((error) => error.code === 'UNKNOWN_PARAM'), validate.stdout).toEqual([]);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  });

  it('denies the write to the protected path and runs the one outside it, the policy read', { timeout: 60_000 }, async () => {
    const setup = current();
    const denied = await setup.write('private/key');
    expect(denied.code).not.toBe(0);
    expect(denied.stdout + denied.stderr).toContain('no private notes');
    expect(existsSync(join(setup.workspace, 'private', 'key'))).toBe(false);
    const written = await setup.write('public/note');
    expect(written.code, written.stdout + written.stderr).toBe(0);
    expect(existsSync(join(setup.workspace, 'public', 'note'))).toBe(true);
  });
});

describe("a when key one slip from a param of an open schema (review Z17, Z17-3)", () => {
  const current = registryForTests({ 'tools/write-note/TOOL.hdlp': OPEN, 'policies/notes.hdlp': policy('pth') });

  it('is an error of hldp validate at the key, with a did-you-mean', { timeout: 60_000 }, async () => {
    const setup = current();
    const validate = await setup.validate();
    expect(validate.code).toBe(1);
    const { errors } = JSON.parse(validate.stdout) as { errors: Array<Record<string, unknown>> };
    expect(errors).toContainEqual(expect.objectContaining({
      file: 'policies/notes.hdlp', line: 6, severity: 'error', code: 'UNKNOWN_PARAM', message: expect.stringContaining("did you mean 'path'?"),
    }));
  });

  it('refuses the write to the protected path instead of running it', { timeout: 60_000 }, async () => {
    const setup = current();
    const call = await setup.write('private/key');
    expect(call.code).not.toBe(0);
    expect(call.stdout + call.stderr).toContain("conditions on 'pth'");
    expect(existsSync(join(setup.workspace, 'private', 'key'))).toBe(false);
  });
});

// Review Z18, Z18-2: a key one slip from two declared params at once was a warning under an open schema (the
// did-you-mean found no single nearest name), and the deny let the write through
const OPEN_WITH_PATCH = tool([
  'type: object', 'properties:', '  path: { type: string }', '  patch: { type: string }', '  content: { type: string }', '  create_dirs: { type: boolean }', 'required: [path]',
]);

describe('a when key one slip from two params of an open schema (review Z18, Z18-2)', () => {
  const current = registryForTests({ 'tools/write-note/TOOL.hdlp': OPEN_WITH_PATCH, 'policies/notes.hdlp': policy('pach') });

  it('is an error of hldp validate naming both, and the write to the protected path is refused', { timeout: 90_000 }, async () => {
    const setup = current();
    const validate = await setup.validate();
    expect(validate.code, validate.stdout).toBe(1);
    const { errors } = JSON.parse(validate.stdout) as { errors: Array<Record<string, unknown>> };
    expect(errors).toContainEqual(expect.objectContaining({
      file: 'policies/notes.hdlp', line: 6, severity: 'error', code: 'UNKNOWN_PARAM', message: expect.stringContaining("did you mean 'path' or 'patch'?"),
    }));
    const call = await setup.write('private/key');
    expect(call.code).not.toBe(0);
    expect(call.stdout + call.stderr).toContain("conditions on 'pach'");
    expect(existsSync(join(setup.workspace, 'private', 'key'))).toBe(false);
  });
});

describe('a when key of an open schema that is no slip of a declared param', () => {
  it('stays a warning: a caller may send it', { timeout: 120_000 }, async () => {
    const setup = await registry({ 'tools/write-note/TOOL.hdlp': OPEN, 'policies/notes.hdlp': policy('owner') });
    try {
      const validate = await setup.validate();
      expect(validate.code, validate.stdout + validate.stderr).toBe(0);
      const { warnings } = JSON.parse(validate.stdout) as { warnings: Array<Record<string, unknown>> };
      expect(warnings).toContainEqual(expect.objectContaining({ severity: 'warning', code: 'UNKNOWN_PARAM', message: expect.stringContaining("conditions on 'owner'") }));
    } finally {
      await setup.temp.cleanup();
    }
  });
});
