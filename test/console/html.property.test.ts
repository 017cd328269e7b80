import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, html, revealed, revealHiddenCharacters } from '../../src/console/html.js';
import { hiddenCharacters } from '../../src/core/index.js';
import { runs } from '../helpers/property-runs.js';

// what reorders or hides text in a browser: bidi controls and marks, zero-width characters, tag characters, controls
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u115f\u1160\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;
const hiddenCharacter = fc
  .oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0x0b, max: 0x1f }), fc.constantFrom(0x061c, 0x115f, 0x200b, 0x200e, 0x200f, 0x202e, 0x2063, 0x2066, 0x206b, 0x3164, 0xfeff, 0xfffa), fc.integer({ min: 0xe0000, max: 0xe007f }))
  .map((code) => String.fromCodePoint(code));
const text = fc.array(fc.oneof(fc.string({ unit: 'grapheme' }), hiddenCharacter)).map((parts) => parts.join(''));

describe('revealed', () => {
  it('leaves no character that hides or reorders text, and no markup of the text', () => {
    fc.assert(
      fc.property(text, (value) => {
        const shown = revealed(value).text;
        expect(shown).not.toMatch(HIDDEN);
        // the only tags are its own marks
        expect(shown.replace(/<span class="hidden-character" title="[^"]*">[^<]*<\/span>/g, '')).not.toMatch(/[<>]/);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('is the escaped text itself when it holds none of them', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }).filter((value) => !HIDDEN.test(value) && hiddenCharacters(value).length === 0), (value) => {
        expect(revealed(value).text).toBe(escapeHtml(value));
      }),
      { numRuns: runs(1000) },
    );
  });
});

describe('revealHiddenCharacters (review N, N17: every view of the console)', () => {
  // a page as the views make it: text in elements, the same text in attributes, in a title and in a pre
  const pageOf = (value: string): string => html`<!doctype html><html><head><title>${value} · x</title></head><body hx-headers='{"a":"b"}'><h1 class="x">${value}</h1><a href="/r/${value}" title="${value}">${value}</a><pre id="output">
${value}</pre><input name="q" value="${value}"></body></html>`.text;
  const tags = (markup: string): string[] => [...markup.matchAll(/<\/?([a-z!]+)/g)].map((match) => match[1]!).filter((name) => name !== 'span');
  const decode = (escape: string): string => String.fromCodePoint(parseInt(/[0-9a-f]+/.exec(escape.slice(2))![0], 16));

  it('leaves no such character in what is shown, attributes exact, the structure the same, and the marks read back to the text', () => {
    fc.assert(
      fc.property(text, (value) => {
        const before = pageOf(value);
        const after = revealHiddenCharacters(before);
        // outside tags (a value in an attribute holds no raw < or >: it is escaped)
        expect(after.replace(/<[^>]*>/g, '')).not.toMatch(HIDDEN);
        expect(tags(after)).toEqual(tags(before));
        for (const attribute of [`href="/r/${escapeHtml(value)}"`, `title="${escapeHtml(value)}"`, `value="${escapeHtml(value)}"`]) expect(after).toContain(attribute);
        // in text, each mark stands for exactly the character it names: the copy button puts them back
        const pre = /<pre id="output">\n([\s\S]*)<\/pre>/.exec(after)![1]!;
        expect(pre.replace(/<span class="hidden-character" title="[^"]*">([^<]*)<\/span>/g, (_mark, escape: string) => escapeHtml(decode(escape)))).toBe(escapeHtml(value));
      }),
      { numRuns: runs(500) },
    );
  });

  it('returns a page with none of them unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }).filter((value) => !HIDDEN.test(value) && hiddenCharacters(value).length === 0), (value) => {
        expect(revealHiddenCharacters(pageOf(value))).toBe(pageOf(value));
      }),
      { numRuns: runs(500) },
    );
  });
});
