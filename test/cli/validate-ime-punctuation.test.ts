import { describe, expect, it } from 'vitest';
import { writeFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-validate-ime-');

const lines = (...text: string[]): string => `${text.join('\n')}\n`;
const tool = (name: string, display: string, argv: string): string =>
  lines(`name: ${name}`, display, 'intent: 显示一个词 (show a word)', 'method: echo', 'executor: shell', 'params_schema:', '  a: { type: string, required: true }', '  b: { type: string, required: true }', 'author: u', 'created: 2026-12-07', 'why: ime.', 'shell:', `  argv: ${argv}`);

// review userZ10, U10-3: punctuation a Chinese input method types (full-width '：' '，', curly quotes) in YAML's own
// structure got the parser's raw errors, six for one comma and none naming it; now one error per line, at the character
describe('hldp validate, input-method punctuation where YAML needs ASCII', () => {
  it('is told once, at the character, naming it and what to type', async () => {
    await writeFiles(folder.path, {
      'tools/fw-colon/TOOL.hdlp': tool('fw-colon', 'display： 全角冒号', '[echo, "{a}", "{b}"]'),
      'tools/cn-comma/TOOL.hdlp': tool('cn-comma', 'display: 逗号', '[echo， "{a}"， "{b}"]'),
      'tools/curly/TOOL.hdlp': tool('curly', 'display: 引号', '[echo, “{a}”, "{b}"]'),
      // the same characters in a text are the text's own: no word on them
      'tools/in-text/TOOL.hdlp': tool('in-text', 'display: 统计：行数，单词数、字节 “全部”', '[echo, "{a}：{b}，“x”"]'),
      'toolsets/pair/TOOLSET.hdlp': lines('name: pair', 'description： 两个工具', 'tools: [fw-colon, in-text]', 'author: u', 'why: w'),
    });
    const run = await runCli(['validate', '.'], { env: folder.cliEnv(), cwd: folder.path });
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split('\n')).toEqual([
      "tools/cn-comma/TOOL.hdlp:13:14: error: full-width comma '，' (U+FF0C) does not separate items in YAML, so the list on line 13 cannot be read: type an ASCII ',' between items (or quote the item, if the '，' belongs to its text); a Chinese or Japanese input method types the full-width one",
      `tools/curly/TOOL.hdlp:13:16: error: curly quote '“' (U+201C) does not quote in YAML, so what it opens is read as plain text: type ASCII quotes at both ends ("…"); an input method or a word processor types curly quotes`,
      "tools/fw-colon/TOOL.hdlp:2:8: error: full-width colon '：' (U+FF1A) does not end a key in YAML, so line 2 is not read as 'display: …': type an ASCII ':' and a space; a Chinese or Japanese input method types the full-width one",
      "toolsets/pair/TOOLSET.hdlp:2:12: error: full-width colon '：' (U+FF1A) does not end a key in YAML, so line 2 is not read as 'description: …': type an ASCII ':' and a space; a Chinese or Japanese input method types the full-width one",
    ]);
  });
});
