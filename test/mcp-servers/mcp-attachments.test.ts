import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { commitFiles, initRepository, makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { callTool, connectStdio } from '../mcp-front/support.js';
import { EVERYTHING, FILESYSTEM, mcpToolYaml, nodeServer, writeMcpConfig } from './support.js';

// Review userZ11, U11-8: an MCP server's image, audio and embedded resources reached the agent as base64 text inside
// `output`, under the text cap: a screenshot was cut mid-base64 and the receipt said ok. U11-21: a text repeated in
// structuredContent (server-filesystem's read_text_file) counted twice in output_bytes once the cap cut it. All run
// with a real `hldp` process and the official servers (server-everything, server-filesystem).
let temp: { path: string; cleanup: () => Promise<void> };
let repo: string;
let config: string;
let files: string;

const RESOURCE = '{ resourceType: { type: string, required: true }, resourceId: { type: integer } }';

beforeAll(async () => {
  temp = await makeTempDir('hldp-mcp-attachments-');
  files = join(temp.path, 'files');
  await mkdir(files);
  repo = await initRepository(join(temp.path, 'repo'));
  await commitFiles(repo, {
    'tools/image/TOOL.hdlp': mcpToolYaml('image', 'everything', 'get-tiny-image', '{}'),
    'tools/small-image/TOOL.hdlp': mcpToolYaml('small-image', 'everything', 'get-tiny-image', '{}', '{ max_output_bytes: 1024 }'),
    'tools/resource/TOOL.hdlp': mcpToolYaml('resource', 'everything', 'get-resource-reference', RESOURCE),
    'tools/read/TOOL.hdlp': mcpToolYaml('read', 'files', 'read_text_file', '{ path: { type: string, required: true } }'),
  });
  config = await writeMcpConfig(temp.path, { everything: nodeServer(EVERYTHING), files: nodeServer(FILESYSTEM, [files], {}, [files]) });
  await mkdir(join(temp.path, 'workspace'));
});
afterAll(() => temp.cleanup());

/** `hldp call TOOL --json`, as a user runs it: the receipt it printed. */
async function call(tool: string, params: Record<string, unknown> = {}): Promise<Receipt> {
  const run = await runCli(['call', tool, '--repo', repo, '--config', config, '--params', JSON.stringify(params), '--json'], {
    env: { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_WORKSPACE: join(temp.path, 'workspace'), HLDP_LOG_LEVEL: 'warn' },
  });
  expect(run.stdout, run.stderr).not.toBe('');
  return JSON.parse(run.stdout) as Receipt;
}

const TEXT = "Here's the image you requested:\nThe image above is the MCP logo.";

describe('an MCP tool whose answer holds an image (server-everything get-tiny-image)', () => {
  it('keeps the text in output and lists the image with its MIME type, size and data, never as base64 text', async () => {
    const receipt = await call('image');
    expect(receipt).toMatchObject({ ok: true, code: null, output: TEXT, cut_bytes: 0 });
    const [image] = receipt.attachments!;
    expect(receipt.attachments).toHaveLength(1);
    const png = Buffer.from(image!.data!, 'base64');
    expect(image).toEqual({ index: 1, type: 'image', mime_type: 'image/png', bytes: png.length, data: image!.data });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // each byte counted once: the text, and the image's base64 as sent
    expect(receipt.output_bytes).toBe(Buffer.byteLength(TEXT) + image!.data!.length);
  });

  it('leaves out an image past the cap, whole, and says so: never a base64 string cut in the middle with ok', async () => {
    const receipt = await call('small-image');
    expect(receipt).toMatchObject({ ok: true, code: null, output: TEXT });
    expect(receipt.output).not.toMatch(/iVBORw0KGgo/);
    const [image] = receipt.attachments!;
    expect(image).toMatchObject({ index: 1, type: 'image', mime_type: 'image/png', bytes: expect.any(Number) });
    expect(image!.data).toBeUndefined();
    expect(image!.omitted).toMatch(/do not fit in the \d+ bytes of max_output_bytes \(1024\) the text output left; raise the tool's constraints.max_output_bytes/);
    const sent = 4 * Math.ceil(image!.bytes / 3);
    expect(receipt.cut_bytes).toBe(sent);
    expect(receipt.output_bytes).toBe(Buffer.byteLength(TEXT) + sent);
  });
});

describe('an MCP tool whose answer embeds a resource (server-everything get-resource-reference)', () => {
  it.each([
    ['Blob', 'data'],
    ['Text', 'text'],
  ])('lists a %s resource with its URI, MIME type and %s', async (resourceType, field) => {
    const receipt = await call('resource', { resourceType, resourceId: 3 });
    expect(receipt.ok).toBe(true);
    expect(receipt.output).toBe(`Returning resource reference for Resource 3:\nYou can access this resource using the URI: demo://resource/dynamic/${resourceType.toLowerCase()}/3`);
    expect(receipt.attachments).toEqual([{ index: 1, type: 'resource', uri: `demo://resource/dynamic/${resourceType.toLowerCase()}/3`, mime_type: 'text/plain', bytes: expect.any(Number), [field]: expect.stringMatching(/./) }]);
    const [resource] = receipt.attachments!;
    const payload = field === 'data' ? Buffer.from(resource!.data!, 'base64') : Buffer.from(resource!.text!);
    expect(payload.toString('utf8')).toMatch(/^Resource 3: This is a/);
    expect(resource!.bytes).toBe(payload.length);
  });
});

describe('an MCP tool whose text is repeated in structuredContent (server-filesystem read_text_file)', () => {
  it('counts the text once in output_bytes when the cap cuts it', async () => {
    const text = 'a line of a file past the cap\n'.repeat(20_000);
    await writeFile(join(files, 'large.txt'), text);
    const receipt = await call('read', { path: join(files, 'large.txt') });
    expect(receipt).toMatchObject({ ok: true, output_bytes: text.length });
    const marker = /\n\[… (\d+) bytes cut of (\d+) …\]\n/.exec(receipt.output)!;
    expect(Number(marker[2])).toBe(text.length);
    expect(receipt.cut_bytes).toBe(Number(marker[1]));
  });
});

describe('hldp mcp, calling a tool whose answer holds an image', () => {
  it('passes the image on to the agent as an MCP image block, after the text', async () => {
    const connected = await connectStdio(repo, ['--config', config]);
    try {
      const result = await callTool(connected.client, 'tool_call', { name: 'image', params: {} });
      expect(result.isError).toBeFalsy();
      expect(result.content.map((block) => block.type)).toEqual(['text', 'image']);
      expect(result.content[0]).toMatchObject({ type: 'text', text: TEXT });
      const receipt = result.structuredContent as unknown as Receipt;
      expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', data: receipt.attachments![0]!.data });
    } finally {
      await connected.close();
    }
  });

  it('says so in a text block when the image was left out', async () => {
    const connected = await connectStdio(repo, ['--config', config]);
    try {
      const result = await callTool(connected.client, 'tool_call', { name: 'small-image', params: {} });
      expect(result.content.map((block) => block.type)).toEqual(['text', 'text']);
      expect(result.content[1]).toMatchObject({ type: 'text', text: expect.stringMatching(/^\[image \(image\/png, \d+ bytes\): left out: .*max_output_bytes/) });
    } finally {
      await connected.close();
    }
  });
});
