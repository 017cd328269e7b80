import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countChars, fitToBudget, type BudgetSection } from '../../src/sessions/index.js';
import { runs } from '../helpers/property-runs.js';

const word = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '中', '文', 'x', '-', '😀'), minLength: 1, maxLength: 12 });
const line = fc.record({
  name: word,
  description: fc.string({ unit: fc.constantFrom('a', ' ', '中', 'z', '😀', '.'), maxLength: 60 }),
  markers: fc.array(fc.constantFrom('[active]', '[needs confirmation]', '[no iteration cap]'), { maxLength: 2 }),
});
const sections = fc.array(
  fc.record({ header: fc.constantFrom('Toolsets:', 'Other tools:', 'Skills:'), lines: fc.array(line, { maxLength: 25 }), dropRank: fc.integer({ min: 0, max: 2 }) }),
  { minLength: 1, maxLength: 3 },
);

/** The kept lines of a fitted block: `- name [markers]` and what follows. */
function keptLines(text: string): string[] {
  return text.split('\n').filter((entry) => entry.startsWith('- '));
}

describe('countChars', () => {
  it('counts what [...text] counts: code points, a surrogate pair one, a lone surrogate one', () => {
    const units = fc.array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff })), { maxLength: 40 });
    fc.assert(
      fc.property(units, (codes) => {
        const text = String.fromCharCode(...codes);
        expect(countChars(text)).toBe([...text].length);
      }),
      { numRuns: runs(500) },
    );
  });
});

describe('fitToBudget', () => {
  it('never exceeds the budget, and counts what it cut', () => {
    fc.assert(
      fc.property(sections, fc.integer({ min: 0, max: 2000 }), (input: BudgetSection[], budget) => {
        const fitted = fitToBudget(input, budget);
        expect(fitted.chars).toBe(countChars(fitted.text));
        expect(fitted.chars).toBeLessThanOrEqual(budget);
        const total = input.reduce((sum, section) => sum + section.lines.length, 0);
        expect(keptLines(fitted.text)).toHaveLength(total - fitted.dropped.length);
      }),
      { numRuns: runs(300) },
    );
  });

  it('keeps every name and marker of a kept line whole, and cuts names only once no description is left', () => {
    fc.assert(
      fc.property(sections, fc.integer({ min: 0, max: 1500 }), (input: BudgetSection[], budget) => {
        const fitted = fitToBudget(input, budget);
        const kept = keptLines(fitted.text);
        const all = input.flatMap((section) => section.lines);
        const dropped = new Set(fitted.dropped);
        const survivors = all.filter((entry) => !dropped.has(entry));
        // lines come out in order: each kept line starts with its name and markers, as written
        const ordered = input.flatMap((section) => section.lines.filter((entry) => !dropped.has(entry)));
        expect(ordered).toHaveLength(kept.length);
        ordered.forEach((entry, position) => {
          const head = `- ${entry.name}${entry.markers.map((marker) => ` ${marker}`).join('')}`;
          expect(kept[position]!.startsWith(head)).toBe(true);
          const rest = kept[position]!.slice(head.length);
          if (rest !== '') {
            expect(rest.startsWith(' — ')).toBe(true);
            const shown = rest.slice(3);
            // a description is the original or a prefix of it ending in '…'
            if (shown !== entry.description) expect(entry.description.startsWith(shown.slice(0, -1)) && shown.endsWith('…')).toBe(true);
          }
        });
        if (fitted.dropped.length > 0) {
          expect(kept.every((text, position) => text === `- ${ordered[position]!.name}${ordered[position]!.markers.map((marker) => ` ${marker}`).join('')}`)).toBe(true);
          // a line with a marker goes only after every line without one
          if (fitted.dropped.some((entry) => entry.markers.length > 0)) expect(survivors.every((entry) => entry.markers.length > 0)).toBe(true);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it('shrinks descriptions one character from each in turn', () => {
    const input: BudgetSection[] = [{ header: 'H', dropRank: 0, lines: [{ name: 'a', description: '0123456789', markers: [] }, { name: 'b', description: 'abcdefghij', markers: [] }, { name: 'c', description: 'xy', markers: [] }] }];
    const full = fitToBudget(input, 10_000);
    expect(full.text).toBe('H\n- a — 0123456789\n- b — abcdefghij\n- c — xy');
    // 5 characters over: round 1 takes one from a, b and c, round 2 one from a and b (a cut one ends in '…')
    const fitted = fitToBudget(input, full.chars - 5);
    expect(fitted.text).toBe('H\n- a — 0123456…\n- b — abcdefg…\n- c — …');
    expect(fitted).toMatchObject({ shortened: 3, cut_chars: 5, dropped: [] });
    // one more: c's last character goes, and its separator with it
    expect(fitToBudget(input, full.chars - 6).text).toBe('H\n- a — 0123456…\n- b — abcdefg…\n- c');
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(sections, fc.integer({ min: 0, max: 800 }), (input: BudgetSection[], budget) => {
        expect(fitToBudget(input, budget)).toEqual(fitToBudget(structuredClone(input), budget));
      }),
      { numRuns: runs(100) },
    );
  });
});
