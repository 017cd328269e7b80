// Issue #18: any-ascii is not loaded with the matcher but when a matcher is prepared; a fresh process whose first use
// is synchronous (a suggestion before any matcher was prepared) requires it there, with the same slugs.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const MATCHER = fileURLToPath(new URL('../../dist/matcher/index.js', import.meta.url));

describe('toolSlug', () => {
  describe('when it is the first thing a fresh process asks of the matcher', () => {
    it('transliterates as a prepared matcher does', async () => {
      const script = `const { toolSlug } = await import(${JSON.stringify(MATCHER)}); process.stdout.write(JSON.stringify([toolSlug('какая погода в Москве'), toolSlug('查看北京的新闻')]));`;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
      expect(JSON.parse(stdout)).toEqual(['pogoda-moskve', 'chakan-beijing-xinwen']);
    });
  });
});
