import { createHash } from 'node:crypto';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../src/core/index.js';
import { execute, type ExecutionContext } from '../../src/executors/index.js';
import { MAX_READ_BYTES, parseExecRequest, runMethod, startGatekeeper, type RunningGatekeeper } from '../../src/gatekeeper/index.js';
import { loadStarterTool } from '../executors/support/tool-definitions.js';
import { runs } from '../helpers/property-runs.js';

let root: string;
let gatekeeper: RunningGatekeeper;
let context: ExecutionContext;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'hldp-windows-')));
  gatekeeper = await startGatekeeper({ root });
  context = { gatekeepers: { default: { url: gatekeeper.url, token: gatekeeper.token } } };
});
afterAll(async () => {
  await gatekeeper.close();
  await rm(root, { recursive: true, force: true });
});

/** Runs one gatekeeper method as `POST /exec` would, without the socket. */
async function method(name: string, params: Record<string, unknown>, maxOutputBytes = 65_536): Promise<ExecutionResult> {
  const parsed = parseExecRequest({ method: name, params, max_output_bytes: maxOutputBytes });
  if (!parsed.ok) throw new Error(parsed.message);
  return runMethod(parsed.request, { root, timeoutMs: 30_000, maxOutputBytes, signal: new AbortController().signal });
}

const HEADER = /^\[lines (\d+)-(\d+) of (\d+)(?:; continue with offset (\d+))?\]\n/;

/** The header's numbers and the bytes after it. */
function window(result: ExecutionResult): { first: number; last: number; total: number; next?: number; body: string } {
  expect(result.ok, result.error ?? '').toBe(true);
  const match = HEADER.exec(result.output);
  expect(match, result.output.slice(0, 80)).not.toBeNull();
  const [header, first, last, total, next] = match!;
  return { first: Number(first), last: Number(last), total: Number(total), ...(next ? { next: Number(next) } : {}), body: result.output.slice(header.length) };
}

describe('windowed read_file', () => {
  describe('when a 10 MB file is walked window by window through the starter tool file-read', () => {
    it('returns windows whose bodies join to the file byte for byte, each header naming the next offset', async () => {
      const lines: string[] = [];
      for (let index = 0, bytes = 0; bytes < 10 * 1024 * 1024; index += 1) {
        // lines of varied length, some multi-byte, the last one without a newline
        lines.push(`${index} ${'x'.repeat(index % 97)} 行${index % 7 === 0 ? ' ünïcödé' : ''}\n`);
        bytes += Buffer.byteLength(lines[index]!);
      }
      const text = lines.join('').slice(0, -1);
      await writeFile(join(root, 'big.txt'), text);
      const tool = loadStarterTool('file-read');
      const parts: string[] = [];
      let offset = 1;
      let windows = 0;
      for (;;) {
        const result = await execute(tool, { path: 'big.txt', encoding: 'utf8', offset }, context);
        const { first, last, total, next, body } = window(result);
        expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(tool.constraints.max_output_bytes);
        expect(first).toBe(offset);
        expect(total).toBe(lines.length);
        expect(body.split('\n').length - (last === total ? 0 : 1)).toBe(last - first + 1);
        parts.push(body);
        windows += 1;
        if (next === undefined) {
          expect(last).toBe(total);
          break;
        }
        expect(next).toBe(last + 1);
        offset = next;
      }
      expect(windows).toBeGreaterThan(9);
      const joined = parts.join('');
      expect(Buffer.byteLength(joined)).toBe(Buffer.byteLength(text));
      expect(createHash('sha256').update(joined).digest('hex')).toBe(createHash('sha256').update(text).digest('hex'));
    });
  });

  describe('when limit is given', () => {
    it('returns exactly that many lines and where to continue', async () => {
      await writeFile(join(root, 'ten.txt'), Array.from({ length: 10 }, (_, index) => `line ${index + 1}\n`).join(''));
      const result = await method('read_file', { path: 'ten.txt', offset: 3, limit: 4 });
      expect(result.output).toBe('[lines 3-6 of 10; continue with offset 7]\nline 3\nline 4\nline 5\nline 6\n');
      expect((await method('read_file', { path: 'ten.txt', offset: 8, limit: 100 })).output).toBe('[lines 8-10 of 10]\nline 8\nline 9\nline 10\n');
    });
  });

  describe('when the window cannot be read', () => {
    it.each([
      ['an offset past the end', { path: 'ten.txt', offset: 11 }, /offset 11 is past the end of 'ten.txt', which has 10 lines/],
      ['base64 with a window', { path: 'ten.txt', offset: 1, encoding: 'base64' }, /use read_bytes/],
    ])('returns INVALID_PARAMS for %s', async (_case, params, message) => {
      await writeFile(join(root, 'ten.txt'), Array.from({ length: 10 }, (_, index) => `line ${index + 1}\n`).join(''));
      const result = await method('read_file', params);
      expect(result).toMatchObject({ ok: false, code: 'INVALID_PARAMS' });
      expect(result.error).toMatch(message);
    });

    it('returns INVALID_PARAMS pointing at read_bytes when the first line alone is over the cap', async () => {
      await writeFile(join(root, 'long-line.txt'), `short\n${'y'.repeat(5000)}\nafter\n`);
      expect((await method('read_file', { path: 'long-line.txt', offset: 1 }, 1024)).output).toBe('[lines 1-1 of 3; continue with offset 2]\nshort\n');
      const result = await method('read_file', { path: 'long-line.txt', offset: 2 }, 1024);
      expect(result).toMatchObject({ ok: false, code: 'INVALID_PARAMS' });
      expect(result.error).toMatch(/line 2 of 'long-line.txt' alone is longer .*read_bytes/);
    });

    it('returns a header of no lines for an empty file', async () => {
      await writeFile(join(root, 'empty.txt'), '');
      expect((await method('read_file', { path: 'empty.txt', offset: 1 })).output).toBe('[lines 0-0 of 0]\n');
    });
  });

  describe('when any text is walked under any cap (property)', () => {
    it('returns windows that join to the file and count its lines', async () => {
      const line = fc.string({ unit: fc.constantFrom('a', 'é', '行', ' ', '\r'), maxLength: 40 });
      await fc.assert(
        fc.asyncProperty(fc.array(line, { maxLength: 60 }), fc.boolean(), fc.integer({ min: 120, max: 600 }), fc.integer({ min: 1, max: 20 }), async (lines, trailing, cap, limit) => {
          const text = lines.join('\n') + (trailing && lines.length > 0 ? '\n' : '');
          await writeFile(join(root, 'property.txt'), text);
          const expectedLines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
          const parts: string[] = [];
          let offset = 1;
          for (;;) {
            const result = await method('read_file', { path: 'property.txt', offset, limit }, cap);
            if (!result.ok) {
              // only a single line too long for the cap may stop the walk
              expect(result.error).toMatch(/alone is longer/);
              return;
            }
            expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(cap);
            const { first, last, total, next, body } = window(result);
            expect(total).toBe(expectedLines);
            if (total === 0) break;
            expect(first).toBe(offset);
            expect(last - first + 1).toBeLessThanOrEqual(limit);
            parts.push(body);
            if (next === undefined) break;
            offset = next;
          }
          expect(parts.join('')).toBe(text);
        }),
        { numRuns: runs(60) },
      );
    });
  });
});

describe('read_bytes', () => {
  const DUMP_ROW = /^([0-9a-f]{8}) {2}((?:[0-9a-f]{2}| {2})(?: {1,2}(?:[0-9a-f]{2}| {2})){15}) {2}\|(.*)\|$/;

  /** The bytes a dump shows, parsed back from its hex columns. */
  function parseDump(output: string): { header: string; bytes: Buffer; firstOffset: number } {
    const [header, ...rows] = output.split('\n').slice(0, -1);
    const hex = rows.map((row) => {
      const match = DUMP_ROW.exec(row);
      expect(match, row).not.toBeNull();
      return match![2]!.replace(/\s+/g, '');
    });
    return { header: header!, bytes: Buffer.from(hex.join(''), 'hex'), firstOffset: rows.length ? parseInt(rows[0]!.slice(0, 8), 16) : 0 };
  }

  it('returns a hex dump of at most 8 KiB with the continue offset, walking the file exactly', async () => {
    const bytes = Buffer.from(Array.from({ length: 20_000 }, (_, index) => (index * 7919) % 256));
    await writeFile(join(root, 'blob.bin'), bytes);
    const seen: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const result = await method('read_bytes', { path: 'blob.bin', offset }, 1024 * 1024);
      expect(result.ok).toBe(true);
      const dump = parseDump(result.output);
      expect(dump.firstOffset).toBe(offset);
      expect(dump.bytes.length).toBeLessThanOrEqual(MAX_READ_BYTES);
      const match = /^\[bytes (\d+)-(\d+) of 20000(?:; continue with offset (\d+))?\]$/.exec(dump.header);
      expect(match, dump.header).not.toBeNull();
      expect(Number(match![1])).toBe(offset);
      expect(Number(match![2])).toBe(offset + dump.bytes.length - 1);
      seen.push(dump.bytes);
      if (match![3] === undefined) break;
      offset = Number(match![3]);
    }
    expect(seen).toHaveLength(3);
    expect(Buffer.concat(seen).equals(bytes)).toBe(true);
  });

  it('returns fewer bytes when the dump would not fit in the cap, and the printable column', async () => {
    await writeFile(join(root, 'hello.bin'), Buffer.concat([Buffer.from('Hello, world!\n'), Buffer.alloc(300, 0)]));
    const result = await method('read_bytes', { path: 'hello.bin', length: 8192 }, 512);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(512);
    expect(result.output.split('\n')[1]).toBe('00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 00  |Hello, world!...|');
    expect(result.output).toMatch(/^\[bytes 0-\d+ of 314; continue with offset \d+\]\n/);
  });

  it.each([
    ['a length over 8 KiB', { path: 'hello.bin', length: 8193 }, /length must be <= 8192/],
    ['a negative offset', { path: 'hello.bin', offset: -1 }, /offset must be >= 0/],
  ])('refuses %s up front', async (_case, params, message) => {
    expect(() => {
      const parsed = parseExecRequest({ method: 'read_bytes', params });
      if (!parsed.ok) throw new Error(parsed.message);
    }).toThrow(message);
  });

  it('refuses a path outside the root like read_file does', async () => {
    expect(await method('read_bytes', { path: '../outside.bin' })).toMatchObject({ ok: false, code: 'PATH_OUTSIDE_ROOT' });
    expect(await readFile(join(root, 'hello.bin'))).toBeDefined();
  });
});
