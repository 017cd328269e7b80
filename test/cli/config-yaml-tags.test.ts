// brush-holder.yaml was read with every tag `yaml` knows, and an unknown one (`!!js/function "…"`) was taken as the
// string inside without a word, where definitions since review R, R13 read only the YAML 1.2 core schema's tags. The
// operator's config is held to the same: a tag outside the core schema stops `hldp serve` at start, at the tag.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { runCli } from '../helpers/run-cli.js';

const home = useCliHome();
const CORE = '!!str, !!int, !!float, !!bool, !!null, !!map, !!seq';

describe('hldp serve --config', () => {
  describe('when the config holds a YAML tag outside the core schema', () => {
    it.each([
      ['listen:\n  host: !!js/function "function(){}"\n', '2:9', "unknown YAML tag '!!js/function'"],
      ['log_level: !shout warn\n', '1:12', "unknown YAML tag '!shout'"],
      ['api_token: !!binary aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=\n', '1:12', "unknown YAML tag '!!binary'"],
      ['max_body_bytes: !!int many\n', '1:17', "YAML tag '!!int' does not fit the value after it"],
    ])('refuses %j at the tag, naming it, before it listens (exit 2)', async (text, at, named) => {
      const file = join(home.path, 'brush-holder.yaml');
      await writeFile(file, text);
      const run = await runCli(['serve', '--config', file, '--port', '0'], { env: home.env });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]).toContain(`${file}:${at}: ${named}`);
      if (named.startsWith('unknown')) expect(run.stderr).toContain(`the config is plain YAML 1.2, whose tags are ${CORE}`);
    });
  });

  describe('when the config holds a core tag that fits its value', () => {
    it('reads the value as the tag says', async () => {
      const file = join(home.path, 'brush-holder.yaml');
      await writeFile(file, 'log_level: !!str shouty\n');
      // the tag is taken: the value is then checked as any other, and refused as not a level
      const run = await runCli(['serve', '--config', file, '--port', '0'], { env: home.env });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("'log_level' must be one of");
    });
  });
});
