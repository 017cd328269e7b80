// Review userZ10, U10-11: a definition written only in Chinese (display 磁盘用量, intent 查看目录占用的磁盘空间, Chinese
// examples) is found by no English request ("how much space is this folder taking" → found: false): the matcher reads
// a Chinese request's English senses, never an English request's Chinese. Its author was told nothing; `hldp validate`
// and `hldp scan` now warn NO_LATIN_TEXT at its intent, and the tool is served all the same.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-no-latin-');
const NATIVE_REPO = fileURLToPath(new URL('../../native-repo', import.meta.url));

const tool = (name: string, fields: Record<string, string>): string =>
  `${Object.entries({ name, display: '磁盘用量', intent: '查看目录占用的磁盘空间', method: 'run', executor: 'shell', params_schema: '{}', author: 'u', created: '2026-12-07', why: '测试', ...fields, shell: '{argv: [du, -sh, .]}' })
    .map(([key, value]) => `${key}: ${value}`)
    .join('\n')}\n`;

interface Report {
  errors: Array<{ code: string }>;
  warnings: Array<{ file: string; line: number; code: string; message: string }>;
}

describe('a definition with no word in Latin letters', () => {
  it('is a NO_LATIN_TEXT warning at its intent, naming the fix; one with any such word is not', async () => {
    await writeFiles(folder.path, {
      'tools/disk-usage/TOOL.hdlp': tool('disk-usage', { examples: '[这个文件夹占多少空间, 目录大小]', aliases: '[磁盘]' }),
      'tools/razmer/TOOL.hdlp': tool('razmer', { display: 'Размер папки', intent: 'показать размер каталога' }),
      'tools/du-en/TOOL.hdlp': tool('du-en', { examples: '[这个文件夹占多少空间, how much space does this folder take]' }),
      'tools/du-alias/TOOL.hdlp': tool('du-alias', { aliases: '[磁盘, du]' }),
      'tools/git-log/TOOL.hdlp': tool('git-log', { display: 'Git日志', intent: '查看git提交记录' }),
    });
    const run = await runCli(['validate', '.', '--json'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.errors).toEqual([]);
    // the registry's other warnings (these tools' intents overlap) are not this one's
    expect(report.warnings.filter((warning) => warning.code === 'NO_LATIN_TEXT').map(({ file, line, code }) => ({ file, line, code }))).toEqual([
      { file: 'tools/disk-usage/TOOL.hdlp', line: 3, code: 'NO_LATIN_TEXT' },
      { file: 'tools/razmer/TOOL.hdlp', line: 3, code: 'NO_LATIN_TEXT' },
    ]);
    expect(report.warnings.find((warning) => warning.code === 'NO_LATIN_TEXT')!.message).toMatch(/a request in English finds this tool only by the words of 'disk-usage'.*add an example in English/);
    // the text view, as an author reads it
    const text = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
    expect(text.stdout).toContain("tools/disk-usage/TOOL.hdlp:3:9: warning: no word in Latin letters in 'intent', 'display', 'aliases' or 'examples'");
  });

  it('leaves the starter registry (native-repo) without one', async () => {
    const run = await runCli(['validate', NATIVE_REPO, '--json'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as Report).warnings.map((warning) => warning.code)).not.toContain('NO_LATIN_TEXT');
  });

  it('is one of the warnings hldp scan lists, and the tool is served', async () => {
    await writeFiles(join(folder.path, 'repo'), { 'tools/disk-usage/TOOL.hdlp': tool('disk-usage', {}) });
    const run = await runCli(['scan', '--repo', join(folder.path, 'repo'), '--json'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.code, run.stderr).toBe(0);
    const scan = JSON.parse(run.stdout) as { tools: number | unknown[]; warnings: Array<{ code: string }> };
    expect(scan.warnings.map((warning) => warning.code)).toEqual(['NO_LATIN_TEXT']);
    expect(Array.isArray(scan.tools) ? scan.tools.length : scan.tools).toBe(1);
  });
});
