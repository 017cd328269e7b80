import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundBytes, cutMarker, REDACTED, redactSecrets, redactValue, succeededResult } from '../../src/executors/index.js';
import { canonicalJson } from '../../src/store/index.js';
import { runs } from '../helpers/property-runs.js';

// the recursive walk redaction used before it had its own stack: on shallow values the two must agree exactly
function recursiveScrub(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => recursiveScrub(item, scrub));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key), recursiveScrub(item, scrub)]));
}

// secrets of lower-case letters and digits: no JSON escaping changes them, and none can overlap '[REDACTED]'
const secretArbitrary = fc.stringMatching(/^[a-z0-9]{8,16}$/);

/** Strings that often hold the secret, once or several times, among other text. */
const textWith = (secret: string) => fc.array(fc.oneof(fc.constant(secret), fc.string({ maxLength: 6 })), { maxLength: 4 }).map((pieces) => pieces.join(''));

/** A JSON value nested `depth` levels deep along one path, each level an object or an array, with siblings that hold the secret. */
function deepValue(secret: string) {
  return fc
    .record({
      depth: fc.integer({ min: 0, max: 20_000 }),
      levels: fc.array(fc.record({ array: fc.boolean(), key: textWith(secret), sibling: fc.oneof(textWith(secret), fc.jsonValue({ maxDepth: 2 })) }), { minLength: 1, maxLength: 6 }),
      leaf: textWith(secret),
    })
    .map(({ depth, levels, leaf }) => {
      let value: unknown = leaf;
      for (let level = 0; level < depth; level += 1) {
        const { array, key, sibling } = levels[level % levels.length]!;
        value = array ? [sibling, value] : { [`${key}`]: value, sibling };
      }
      return value;
    });
}

describe('redactValue', () => {
  describe('when a value nests thousands of levels deep or spreads wide', () => {
    it('never throws, and leaves no occurrence of a secret in any string, keys included', () => {
      fc.assert(
        fc.property(secretArbitrary.chain((secret) => fc.tuple(fc.constant(secret), deepValue(secret))), ([secret, value]) => {
          const redacted = redactValue(value, [secret]);
          expect(canonicalJson(redacted)).not.toContain(secret);
        }),
        { numRuns: runs(20) },
      );
    });

    it('returns what the recursive walk returned on values it could walk', () => {
      fc.assert(
        fc.property(secretArbitrary.chain((secret) => fc.tuple(fc.constant(secret), fc.array(fc.oneof(textWith(secret), fc.jsonValue({ maxDepth: 4 }), fc.dictionary(textWith(secret), fc.jsonValue({ maxDepth: 3 }))), { maxLength: 8 }))), ([secret, value]) => {
          const scrub = (text: string): string => text.split(secret).join(REDACTED);
          expect(redactValue(value, [secret])).toStrictEqual(recursiveScrub(value, scrub));
        }),
        { numRuns: runs(300) },
      );
    });

    it('redacts every string of an array of 200,000 members', () => {
      const secret = 'wide-secret-0123';
      const redacted = redactValue(Array.from({ length: 200_000 }, (_item, index) => `${index}:${secret}`), [secret]);
      expect(redacted.every((text, index) => text === `${index}:${REDACTED}`)).toBe(true);
    });

    it('keeps a key named __proto__ as a member, not as the prototype', () => {
      const redacted = redactValue(JSON.parse('{"__proto__":{"token":"proto-secret-0123"}}') as Record<string, unknown>, ['proto-secret-0123']);
      expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
      expect(JSON.stringify(redacted)).toBe(`{"__proto__":{"token":"${REDACTED}"}}`);
    });
  });
});

describe('redactSecrets', () => {
  it('redacts a structured_content nested 20,000 levels deep instead of overflowing the stack', () => {
    const secret = 'deep-secret-0123456789';
    const structured = JSON.parse(`${'{"a":'.repeat(20_000)}"${secret}"${'}'.repeat(20_000)}`) as Record<string, unknown>;
    const result = { ok: true, output: secret, error: null, stderr: '', code: null, exit_code: null, signal: null, timed_out: false, output_bytes: 1, cut_bytes: 0, duration_ms: 1, structured_content: structured };
    const redacted = redactSecrets(result, [secret]);
    expect(redacted.output).toBe(REDACTED);
    expect(canonicalJson(redacted.structured_content)).toBe(`${'{"a":'.repeat(20_000)}"${REDACTED}"${'}'.repeat(20_000)}`);
  });
});

describe('redactSecrets over output the cap cut', () => {
  const MARKER = /\n\[… (\d+) bytes cut of (\d+) …\]\n/;
  // secrets in capitals, the rest of the text without any: a capital in the receipt can only come from a secret
  const secretOf = fc.stringMatching(/^[A-Z]{8,24}$/);
  const filler = (length: number) => fc.array(fc.constantFrom('a', 'b', ' ', '\n', 'é', '→'), { minLength: length, maxLength: length }).map((chars) => chars.join(''));
  // a text of `length` characters with the secret (if placed) at `at`, most often across the head's or the tail's cut
  const cutText = fc.record({ cap: fc.integer({ min: 40, max: 160 }), secret: secretOf, placed: fc.boolean(), extra: fc.integer({ min: 1, max: 300 }), shift: fc.integer({ min: -26, max: 2 }), where: fc.constantFrom('head', 'tail', 'anywhere') })
    .chain((shape) => {
      const length = shape.cap + shape.extra;
      return fc.record({ before: filler(length), anywhere: fc.integer({ min: 0, max: length }) }).map(({ before, anywhere }) => {
        const total = Buffer.byteLength(before);
        const budget = shape.cap - Buffer.byteLength(cutMarker(total, total));
        // the cut's place in characters, near enough: the filler's wide characters move it a little
        const ratio = before.length / total;
        const headCut = Math.floor((budget / 2) * ratio);
        const tailCut = before.length - Math.floor((budget - Math.floor(budget / 2)) * ratio);
        const at = Math.max(0, Math.min(before.length, shape.where === 'head' ? headCut + shape.shift : shape.where === 'tail' ? tailCut + shape.shift : anywhere));
        return { ...shape, text: shape.placed ? before.slice(0, at) + shape.secret + before.slice(at) : before };
      });
    });

  it('shows no part of a secret the cut divides, counts what it cut, stays within the cap, and leaves other text alone', () => {
    fc.assert(
      fc.property(cutText, fc.stringMatching(/^[A-Z]{8,12}$/), ({ cap, secret, placed, text }, absent) => {
        const rendered = boundBytes(text, cap);
        const result = redactSecrets(succeededResult(rendered, 0), [secret, `Q${absent}`]);
        expect(result.output.replaceAll(REDACTED, '')).not.toMatch(/[A-Z]/);
        // (a whole secret shorter than '[REDACTED]' lengthens the text: that is redaction's, not the cut's)
        if (!result.output.includes(REDACTED)) expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(cap);
        if (!placed) expect(result).toMatchObject({ output: rendered.text, cut_bytes: rendered.cutBytes });
        const marker = MARKER.exec(result.output);
        if (rendered.cutBytes === 0) expect(marker).toBeNull();
        if (marker && !result.output.includes(REDACTED)) {
          const kept = Buffer.byteLength(result.output.slice(0, marker.index)) + Buffer.byteLength(result.output.slice(marker.index + marker[0].length));
          expect(kept + Number(marker[1])).toBe(Number(marker[2]));
          expect(result.cut_bytes).toBe(Number(marker[1]));
        }
      }),
      { numRuns: runs(2000) },
    );
  });

  it('leaves base64 output whole, even where its edges look like the start or the end of a secret', () => {
    const rendered = boundBytes(Buffer.from('a file read as base64, long enough to be cut. '.repeat(20)), 100, 'base64');
    const head = rendered.text.slice(0, rendered.text.indexOf('\n[…'));
    const tail = rendered.text.slice(rendered.text.indexOf('…]\n') + '…]\n'.length);
    const secrets = [`${head.slice(-3)}-not-seen`, `not-seen-${tail.slice(0, 3)}`];
    expect(redactSecrets(succeededResult(rendered, 0), secrets)).toMatchObject({ output: rendered.text, cut_bytes: rendered.cutBytes });
    // the same edges in text are cut
    expect(redactSecrets(succeededResult(boundBytes(`x${'base64 '.repeat(40)}`, 100), 0), ['64 -not-seen']).output).toMatch(/base\n\[…/);
  });
});
