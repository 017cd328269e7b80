import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOnce } from '../../src/core/load-once.js';
import { makeTempDir } from '../helpers/git.js';

// The MCP SDK, the MCP client kit, isomorphic-git and the remote source's modules load on first use. A load that
// failed once used to be kept as a rejected promise, so every later MCP request or remote scan failed the same way
// until the process restarted, even once the module could be read.

let temp: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  temp = await makeTempDir();
});
afterEach(() => temp.cleanup());

describe('loadOnce', () => {
  it('tries a failed import again on the next call, and keeps the one that succeeded', async () => {
    const file = join(temp.path, 'late.mjs');
    let imports = 0;
    const load = loadOnce(() => {
      imports++;
      return import(pathToFileURL(file).href) as Promise<{ answer: number }>;
    });
    // the module is not there yet: the import fails, as one during a deploy or at the file limit would
    await expect(load()).rejects.toThrow(/Cannot find module|ERR_MODULE_NOT_FOUND/);
    await writeFile(file, 'export const answer = 42;\n');
    expect((await load()).answer).toBe(42);
    expect((await load()).answer).toBe(42);
    expect(imports).toBe(2);
  });

  it('shares one load among callers that ask while it runs', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { loads };
    });
    const [first, second] = await Promise.all([load(), load()]);
    expect(first).toBe(second);
    expect(loads).toBe(1);
  });
});
