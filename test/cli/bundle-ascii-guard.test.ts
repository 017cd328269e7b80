// Review Z3, Z3-6. The build writes every character outside ASCII in the CommonJS bundle as its \u escape, so that
// bin/hldp.js reads it as one-byte text (issue #18). An escape in a tagged template changes the raw text its tag is
// given (`String.raw` reads it), and the guard against that looked only at the character's own line for `.raw`: a
// `String.raw` script with a character on its second line, or a tag by another name, was escaped and changed without
// a word. The build now finds tagged templates with TypeScript's parser and fails naming the character and the tag.
// Each case builds a copy of the package (tsc's dist/ copied, node_modules linked) with the real build/bundle.js.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, readFileSync, symlinkSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { html } from '../../src/console/html.js';
import { makeTempDir } from '../helpers/git.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const execFileAsync = promisify(execFile);

let temp: { path: string; cleanup: () => Promise<void> };
let copy: string;
beforeEach(async () => {
  temp = await makeTempDir();
  copy = join(temp.path, 'package');
  for (const part of ['package.json', 'bin', 'build', 'schemas', 'native-repo', 'assets']) cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true, filter: (source) => !source.startsWith(join(ROOT, 'dist/bundle')) });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
});
afterEach(() => temp.cleanup());

/** Builds the copy with `code` added to the CLI's entry module (kept by the bundler: it sets a global). */
async function buildWith(code: string): Promise<{ code: number; stderr: string }> {
  await appendFile(join(copy, 'dist/cli/main.js'), `\n${code}\n`);
  try {
    await execFileAsync(process.execPath, ['build/bundle.js'], { cwd: copy, timeout: 240_000 });
    return { code: 0, stderr: '' };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stderr: failed.stderr ?? String(error) };
  }
}

/** The CommonJS bundle the copy's build wrote (the one bin/hldp.js runs): its path and its bytes. */
function commonJsBundle(): { file: string; text: Buffer } {
  const bundle = join(copy, 'dist/bundle');
  const file = join(bundle, (JSON.parse(readFileSync(join(bundle, 'commonjs.json'), 'utf8')) as { file: string }).file);
  return { file, text: readFileSync(file) };
}

describe('the CommonJS bundle built from a source holding a character outside ASCII', () => {
  it.each([
    ['on the second line of a String.raw template', 'globalThis.hldpProbe = String.raw`#!/bin/sh\necho "caf\u00e9"`;', 'String.raw'],
    ['in a String.raw template with a substitution, on a line after it', 'globalThis.hldpProbe = String.raw`first ${process.pid}\nsecond \u00e9 line`;', 'String.raw'],
    ['in a template tagged by another name for String.raw', 'const rawText = String.raw;\nglobalThis.hldpProbe = rawText`caf\u00e9`;', 'rawText'],
  ])('fails the build naming the character and the tag, writing no bundle, when it is %s', { timeout: 300_000 }, async (_case, code, tag) => {
    const built = await buildWith(code);
    expect(built.code, built.stderr).not.toBe(0);
    expect(built.stderr).toContain(`the CommonJS bundle has "\u00e9" in a template tagged ${tag}, whose raw text (strings.raw, what String.raw reads) its escape would change to \\u00e9`);
    expect(built.stderr).toContain("(${'\\u00e9'} inside String.raw)");
    // it fails before writing anything: no bundle whose text says something else than its source
    expect(existsSync(join(copy, 'dist/bundle'))).toBe(false);
  });

  it('builds, ASCII only and the same text, when the character is in an untagged multi-line template or the escape the message advises', { timeout: 300_000 }, async () => {
    const built = await buildWith('globalThis.hldpProbe = [`first\nsecond caf\u00e9`, String.raw`#!/bin/sh\necho "caf${\'\\u00e9\'}"`];');
    expect(built.code, built.stderr).toBe(0);
    expect(commonJsBundle().text.every((byte) => byte < 0x80)).toBe(true);
    // the bundle run as bin/hldp.js runs it (latin1 text): the probe holds the characters written in the source
    const probe = await execFileAsync(process.execPath, ['-e', `require(${JSON.stringify(commonJsBundle().file)}); process.stdout.write(JSON.stringify(globalThis.hldpProbe));`], { cwd: copy, timeout: 60_000 });
    expect(JSON.parse(probe.stdout)).toEqual(['first\nsecond caf\u00e9', '#!/bin/sh\necho "caf\u00e9"']);
  });
});

describe("the console's html tag, whose templates the build escapes", () => {
  it('reads only the cooked strings, so an escape in its raw text changes nothing', () => {
    const strings = Object.assign(['<p>\u2190 ', '</p>'], { raw: ['<p>\\u2190 ', '</p>'] }) as unknown as TemplateStringsArray;
    expect(html(strings, 'back').text).toBe('<p>\u2190 back</p>');
  });
});
