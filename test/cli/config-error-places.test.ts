// Review userZ6, F7: a principal with no token stopped `hldp serve` with "principals.bob: needs a token …" and no
// place in the file (README promises file:line:col for a bad key), and of two unknown keys only the first was said,
// the second at the next start. Now the principal's line is named, and every problem of the schema at once.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

const env = (): NodeJS.ProcessEnv => ({ HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_CACHE_DIR: join(temp.path, 'cache') });

describe('hldp serve with a config mistake', () => {
  it('names the file and line of a principal that has no token', async () => {
    const file = join(temp.path, 'hldp.yaml');
    await writeFile(file, ['listen: { port: 3950 }', 'principals:', '  alice: { roles: [approver], token_sha256: ' + 'a'.repeat(64) + ' }', '  bob: { roles: [agent] }', ''].join('\n'));
    const serve = await runCli(['serve', '--config', file, '--port', '0'], { env: env() });
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toContain(`${file}:4:3: principals.bob: needs a token: token_sha256`);
  });

  it('says every unknown key of the file at once, each at its line', async () => {
    const file = join(temp.path, 'typo.yaml');
    await writeFile(file, ['listen: { prot: 3950 }', 'principals:', '  alice: { roles: [approver], tols: [file-read] }', ''].join('\n'));
    const serve = await runCli(['serve', '--config', file, '--port', '0'], { env: env() });
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toContain(`${file}:1:11: unknown field 'listen.prot'`);
    expect(serve.stderr).toContain(`${file}:3:31: unknown field 'principals.alice.tols'`);
  });

  // review Z9, Z9-2: the variable's bad value was said at the file's line, whose value is fine
  it("says a bad value an environment variable gave without the file's place", async () => {
    const file = join(temp.path, 'hldp.yaml');
    await writeFile(file, 'max_output_bytes: 100000\n');
    const serve = await runCli(['serve', '--config', file, '--port', '0'], { env: { ...env(), HLDP_MAX_OUTPUT_BYTES: '10' } });
    expect(serve.code).not.toBe(0);
    expect(serve.stderr).toMatch(/max_output_bytes: .*got 10/);
    expect(serve.stderr).not.toContain(`${file}:`);
    // the file's own bad value is still said at its place
    await writeFile(file, 'max_output_bytes: 10\n');
    const own = await runCli(['serve', '--config', file, '--port', '0'], { env: env() });
    expect(own.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1:\\d+: `));
  });

  // review Z10-3: a mistyped model URL from the environment was printed whole, its user:password (an endpoint's key) with it
  it('prints an invalid URL without its credentials or query, naming the variable that gave it', async () => {
    const file = join(temp.path, 'hldp.yaml');
    await writeFile(file, 'log_level: info\n');
    const model = await runCli(['serve', '--config', file, '--port', '0'], { env: { ...env(), HLDP_MATCHER_MODEL_URL: 'htp://u:sk-SECRETKEY123@h/v1?key=sk-QUERYKEY456', HLDP_MATCHER_MODEL: 'm' } });
    expect(model.code).not.toBe(0);
    expect(model.stderr).toContain("HLDP_MATCHER_MODEL_URL: must be an http(s) URL, got 'htp://***:***@h/v1?***'");
    // a public URL that is no URL at all (here a bad host) is said without what stood before its '@' or after its '?'
    const listen = await runCli(['serve', '--config', file, '--port', '0'], { env: { ...env(), HLDP_PUBLIC_URL: 'https://admin:sk-SECRETKEY123@[hldp.example/?token=sk-QUERYKEY456' } });
    expect(listen.code).not.toBe(0);
    expect(listen.stderr).toContain("HLDP_PUBLIC_URL: must be an http:// or https:// URL where people reach this instance (e.g. https://hldp-a.example), got 'https://***@[hldp.example/?***'");
    for (const run of [model, listen]) expect(run.stderr).not.toMatch(/SECRETKEY|QUERYKEY|admin/);
  });
});
