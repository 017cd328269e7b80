import { describe, expect, it } from 'vitest';
import { BoundedOutput, boundBytes, cutMarker } from '../../src/executors/index.js';

function feed(capacity: number, chunks: Array<string | Buffer>): BoundedOutput {
  const output = new BoundedOutput(capacity);
  for (const chunk of chunks) output.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return output;
}

describe('BoundedOutput', () => {
  describe('when everything fits', () => {
    it.each([
      ['one chunk', ['hello\n']],
      ['many chunks', ['he', 'll', 'o', '\n']],
      ['exactly the capacity', ['0123456789'.repeat(10)]],
    ])('returns the bytes untouched for %s', (_case, chunks) => {
      const rendered = feed(100, chunks).render();
      expect(rendered).toEqual({ text: chunks.join(''), totalBytes: chunks.join('').length, cutBytes: 0 });
    });
  });

  describe('when the stream is longer than the capacity', () => {
    const lines = Array.from({ length: 10_000 }, (_, index) => `line ${index}\n`).join('');

    it.each([64, 200, 4096])('returns head, a counted marker and tail within %i bytes', (capacity) => {
      const rendered = feed(capacity, [lines]).render();
      expect(Buffer.byteLength(rendered.text)).toBeLessThanOrEqual(capacity);
      expect(rendered.totalBytes).toBe(Buffer.byteLength(lines));
      const [head, tail] = rendered.text.split(cutMarker(rendered.cutBytes, rendered.totalBytes));
      expect(lines.startsWith(head!)).toBe(true);
      expect(lines.endsWith(tail!)).toBe(true);
      expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!) + rendered.cutBytes).toBe(rendered.totalBytes);
      expect(rendered.text).toMatch(/\[… \d+ bytes cut of \d+ …\]/);
    });

    it('returns the same text whether the stream came in one chunk or byte by byte', () => {
      const whole = feed(300, [lines.slice(0, 5000)]).render();
      const bytewise = feed(300, [...lines.slice(0, 5000)]).render();
      expect(bytewise).toEqual(whole);
    });

    it('returns only whole characters around the cut', () => {
      const text = '铸渊'.repeat(1000);
      const rendered = feed(101, [text]).render();
      expect(rendered.text).not.toContain('\uFFFD');
      const [head, tail] = rendered.text.split(cutMarker(rendered.cutBytes, rendered.totalBytes));
      expect(text.startsWith(head!)).toBe(true);
      expect(text.endsWith(tail!)).toBe(true);
    });

    it('returns base64 head and tail that each decode to the stream edges', () => {
      const bytes = Buffer.from(Array.from({ length: 5000 }, (_, index) => index % 251));
      const rendered = boundBytes(bytes, 400, 'base64');
      expect(rendered.text.length).toBeLessThanOrEqual(400);
      const [head, tail] = rendered.text.split(cutMarker(rendered.cutBytes, rendered.totalBytes));
      const headBytes = Buffer.from(head!, 'base64');
      const tailBytes = Buffer.from(tail!, 'base64');
      expect(headBytes.equals(bytes.subarray(0, headBytes.length))).toBe(true);
      expect(tailBytes.equals(bytes.subarray(bytes.length - tailBytes.length))).toBe(true);
      expect(headBytes.length + tailBytes.length + rendered.cutBytes).toBe(bytes.length);
    });
  });

  describe('when the capacity is not a positive integer', () => {
    it.each([0, -1, 1.5, Number.NaN])('throws a TypeError for %s', (capacity) => {
      expect(() => new BoundedOutput(capacity)).toThrow(TypeError);
    });
  });
});
