import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { callTool, connectStdio } from '../mcp-front/support.js';
import { EVERYTHING, mcpToolYaml, nodeServer, startEverythingHttp, writeMcpConfig } from './support.js';

// Left by fixu29c: a base64 payload longer on the wire than 6 × the tool's cap was cut as the answer arrived (head,
// marker, tail), the official SDK client then refused the whole answer ("Invalid Base64 string"), and the call failed
// MCP_ERROR with its text blocks lost. Now the cut payload arrives as a stand-in the receipt lists as `omitted` with its
// true size, and `ok` is what the server said. A real `hldp call` and `hldp mcp`, with server-everything (stdio and
// Streamable HTTP) and a fixture server of a payload 10 × the cap.
const require = createRequire(import.meta.url);
const ATTACHMENT = fileURLToPath(new URL('./fixtures/attachment-server.mjs', import.meta.url));
const { MCP_TINY_IMAGE } = (await import(join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/tools/get-tiny-image.js'))) as { MCP_TINY_IMAGE: string };
const TINY_TEXT = "Here's the image you requested:\nThe image above is the MCP logo.";
const FIXTURE_TEXT = 'before the picture\nafter the picture';
const CAP = 1024;
/** 10 × the cap, and not a multiple of 3: its base64 ends in padding */
const PICTURE_BYTES = 10 * CAP + 1;
const PICTURE_SENT = 4 * Math.ceil(PICTURE_BYTES / 3);

let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let config: string;
let http: { url: string; close(): Promise<void> };

const PICTURE = '{ bytes: { type: integer }, kind: { type: string }, isError: { type: boolean }, structured: { type: boolean } }';

beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-attachment-cut-');
  http = await startEverythingHttp();
  repo = await initRepository(join(temp.path, 'repo'));
  // server-everything's tiny image is 5380 base64 characters: over 6 × a cap of 512
  await commitFiles(repo, {
    'tools/tiny/TOOL.hdlp': mcpToolYaml('tiny', 'everything', 'get-tiny-image', '{}', '{ max_output_bytes: 512 }'),
    'tools/tiny-http/TOOL.hdlp': mcpToolYaml('tiny-http', 'remote', 'get-tiny-image', '{}', '{ max_output_bytes: 512 }'),
    'tools/picture/TOOL.hdlp': mcpToolYaml('picture', 'pictures', 'picture', PICTURE, `{ max_output_bytes: ${CAP} }`),
  });
  config = await writeMcpConfig(temp.path, { everything: nodeServer(EVERYTHING), remote: { url: http.url }, pictures: nodeServer(ATTACHMENT) });
  await mkdir(join(temp.path, 'workspace'));
});
afterAll(async () => {
  await http?.close();
  await temp?.cleanup();
});

/** `hldp call TOOL --json`, as a user runs it: the receipt it printed. */
async function call(tool: string, params: Record<string, unknown> = {}): Promise<Receipt> {
  const run = await runCli(['call', tool, '--repo', repo, '--config', config, '--params', JSON.stringify(params), '--json'], {
    env: { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_LOG_LEVEL: 'warn' },
  });
  expect(run.stdout, run.stderr).not.toBe('');
  return JSON.parse(run.stdout) as Receipt;
}

const OMITTED = /^left out: its \d+ bytes \(\d+ as base64\) do not fit in the \d+ bytes of max_output_bytes \(\d+\) the text output left; raise the tool's constraints.max_output_bytes to receive it$/;

describe('an MCP image longer on the wire than 6 × the cap (server-everything get-tiny-image under a cap of 512)', () => {
  const tinyBytes = Buffer.from(MCP_TINY_IMAGE, 'base64').length;

  it.each([
    ['stdio', 'tiny'],
    ['Streamable HTTP', 'tiny-http'],
  ])('over %s: keeps the text and ok, and lists the image as omitted with its true size', async (_transport, tool) => {
    const receipt = await call(tool);
    expect(receipt).toMatchObject({ ok: true, code: null, output: TINY_TEXT });
    expect(receipt.attachments).toEqual([{ index: 1, type: 'image', mime_type: 'image/png', bytes: tinyBytes, omitted: expect.stringMatching(OMITTED) }]);
    expect(receipt.attachments![0]!.omitted).toContain(`its ${tinyBytes} bytes (${MCP_TINY_IMAGE.length} as base64)`);
    expect(receipt.cut_bytes).toBe(MCP_TINY_IMAGE.length);
    expect(receipt.output_bytes).toBe(Buffer.byteLength(TINY_TEXT) + MCP_TINY_IMAGE.length);
  });
});

describe('a payload of 10 × the cap between two text blocks (a fixture server)', () => {
  it.each([
    ['an image', 'image', { type: 'image', mime_type: 'image/png' }],
    ['a blob resource', 'blob', { type: 'resource', mime_type: 'application/octet-stream', uri: 'file:///picture.bin' }],
  ])('%s: ok, both texts, and the payload omitted with its size', async (_what, kind, listed) => {
    const receipt = await call('picture', { bytes: PICTURE_BYTES, kind });
    expect(receipt).toMatchObject({ ok: true, code: null, output: FIXTURE_TEXT, error: null });
    expect(receipt.attachments).toEqual([{ index: 1, ...listed, bytes: PICTURE_BYTES, omitted: expect.stringMatching(OMITTED) }]);
    expect(receipt.cut_bytes).toBe(PICTURE_SENT);
    expect(receipt.output_bytes).toBe(Buffer.byteLength(FIXTURE_TEXT) + PICTURE_SENT);
  });

  it('an answer the server marked isError fails as it said, MCP_ERROR with its text, not over the cut', async () => {
    const receipt = await call('picture', { bytes: PICTURE_BYTES, isError: true });
    expect(receipt).toMatchObject({ ok: false, code: 'MCP_ERROR', output: '', error: FIXTURE_TEXT });
    expect(receipt.attachments).toEqual([{ index: 1, type: 'image', mime_type: 'image/png', bytes: PICTURE_BYTES, omitted: expect.stringMatching(OMITTED) }]);
  });

  it('shows the payload repeated in structuredContent cut as any long string, never as a stand-in', async () => {
    const receipt = await call('picture', { bytes: PICTURE_BYTES, structured: true });
    expect(receipt).toMatchObject({ ok: true, output: FIXTURE_TEXT });
    const shown = (receipt.structured_content as { data: string }).data;
    const expectedHead = Buffer.from(Array.from({ length: PICTURE_BYTES }, (_, index) => index % 251)).toString('base64').slice(0, 100);
    expect(shown.startsWith(expectedHead)).toBe(true);
    expect(shown).toMatch(new RegExp(`\\n\\[… \\d+ bytes cut of ${PICTURE_SENT} …\\]\\n`));
  });

  it('over hldp mcp: the agent gets both texts and a text block saying the picture was left out', async () => {
    const connected = await connectStdio(repo, ['--config', config]);
    try {
      const result = await callTool(connected.client, 'tool_call', { name: 'picture', params: { bytes: PICTURE_BYTES } });
      expect(result.isError).toBeFalsy();
      expect(result.content.map((block) => block.type)).toEqual(['text', 'text']);
      expect(result.content[0]).toMatchObject({ type: 'text', text: FIXTURE_TEXT });
      expect(result.content[1]).toMatchObject({ type: 'text', text: expect.stringMatching(new RegExp(`^\\[image \\(image/png, ${PICTURE_BYTES} bytes\\): left out: `)) });
    } finally {
      await connected.close();
    }
  });
});
