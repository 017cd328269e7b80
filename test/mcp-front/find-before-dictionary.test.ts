// userZ7 F9 (issue #11): an MCP client starts `hldp mcp` and asks at once. The Chinese-English dictionary is read from
// the first Chinese word the process meets (a registry with no Chinese example or alias does not read it at start), in
// a worker thread, and no request waits for it: the first Chinese `tool_find` is always answered from its words as
// written. That answer said `confidence: "high"` (an agent calls a high first candidate; nothing in MCP says "ask again
// in a second"), and a `found: false` one lost the `incomplete` key README documents for either kind.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LEXICON_LOADING } from '../../src/matcher/index.js';
import { commitFiles, initRepository, makeTempDir, makeToolYaml } from '../helpers/git.js';
import { callTool, connectStdio, type Connected } from './support.js';

describe('hldp mcp: tool_find before the Chinese-English dictionary is read', () => {
  const opened: Array<Connected | { close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of opened.splice(0)) await item.close();
  });

  async function englishRegistry(): Promise<string> {
    const temp = await makeTempDir('hldp-find-dictionary-');
    opened.push({ close: temp.cleanup });
    const repo = await initRepository(join(temp.path, 'repo'));
    // Chinese only in display names: the registry has no Chinese example or alias, so nothing reads the dictionary at start
    await commitFiles(repo, {
      'tools/list-files/TOOL.hdlp': makeToolYaml('list-files', { display: '列出文件', intent: 'List the files and folders in a directory' }),
      'tools/count-lines/TOOL.hdlp': makeToolYaml('count-lines', { display: 'count lines', intent: 'Count the lines, words and bytes of a file' }),
    });
    return repo;
  }

  it('answers the first Chinese request low, never high, saying it is incomplete', async () => {
    const connected = await connectStdio(await englishRegistry());
    opened.push(connected);
    const answer = (await callTool(connected.client, 'tool_find', { intent: '列出目录里的文件' })).structuredContent;
    expect(answer).toMatchObject({ found: true, confidence: 'low', incomplete: LEXICON_LOADING, candidates: [{ name: 'list-files' }] });
  }, 120_000);

  it('carries incomplete on a found: false answer too', async () => {
    const connected = await connectStdio(await englishRegistry());
    opened.push(connected);
    const answer = (await callTool(connected.client, 'tool_find', { intent: '预订去东京的机票' })).structuredContent;
    expect(answer).toMatchObject({ found: false, incomplete: LEXICON_LOADING });
    expect(String((answer as { suggestion: string }).suggestion)).toMatch(/^the Chinese-English dictionary was still being read/);
  }, 120_000);
});
