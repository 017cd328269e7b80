import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let temp: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  temp = await makeTempDir('hldp-readme-policy-');
});
afterAll(async () => {
  await temp?.cleanup();
});

// review userZ8, L2: README's example policies/writes.hdlp, copied as written beside README's own file-write
// (native-repo, require_confirm: true), drew ALLOW_SKIPS_CONFIRMATION at once: the first policy an operator copies warned
describe("README's example policies/writes.hdlp with native-repo's tools", () => {
  it('validates with no warning', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const example = /```yaml\n# policies\/writes\.hdlp\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const registry = join(temp.path, 'registry');
    await cp(join(ROOT, 'native-repo', 'tools'), join(registry, 'tools'), { recursive: true });
    await mkdir(join(registry, 'policies'));
    await writeFile(join(registry, 'policies', 'writes.hdlp'), example!);
    const result = await runCli(['validate', registry]);
    expect(result.stdout + result.stderr).not.toMatch(/: (warning|error): /);
    expect(result.stdout + result.stderr).toContain('0 error(s), 0 warning(s)');
    expect(result.code).toBe(0);
  });
});
