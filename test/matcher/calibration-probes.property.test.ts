import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/core/index.js';
import { analyzeWords } from '../../src/matcher/analyze.js';
import { calibrationProbes } from '../../src/matcher/calibration.js';
import { runs } from '../helpers/property-runs.js';
import { makeToolDefinition } from './helpers.js';

// The probes were taken from a list of every example and alias, made whole (400,000 objects at 100,000 tools); they
// are now taken from the tools by counting (issue #18). The sample must be the very same: this is the list's way.
function probesFromTheWholeList(tools: readonly ToolDefinition[]): Array<{ position: number; text: string }> {
  const texts: Array<{ position: number; text: string; alias: boolean }> = [];
  tools.forEach((tool, position) => {
    for (const text of tool.examples) texts.push({ position, text, alias: false });
    for (const text of tool.aliases) texts.push({ position, text, alias: true });
  });
  const probes: Array<{ position: number; text: string }> = [];
  const step = Math.max(1, texts.length / 128);
  for (let at = 0; at < texts.length && probes.length < 64; at += step) {
    const { position, text, alias } = texts[Math.floor(at)]!;
    if (!alias || analyzeWords(text, 2).length >= 2) probes.push({ position, text });
  }
  return probes;
}

const text = fc.array(fc.constantFrom('read', 'the', 'file', 'git', 'log', 'weather', 'in', 'Tokyo', '提交', 'x'), { minLength: 1, maxLength: 4 }).map((words) => words.join(' '));
const tools = fc.array(fc.record({ examples: fc.array(text, { maxLength: 5 }), aliases: fc.array(text, { maxLength: 5 }) }), { maxLength: 120 }).map((list) =>
  list.map(({ examples, aliases }, at) => makeToolDefinition({ name: `tool-${String(at).padStart(3, '0')}`, examples, aliases })),
);

describe('calibrationProbes', () => {
  describe('when a registry has more examples and aliases than the sample takes, or fewer', () => {
    it('returns the very probes the list of every text gave, in order', () => {
      fc.assert(
        fc.property(tools, (registry) => {
          expect(calibrationProbes(registry)).toEqual(probesFromTheWholeList(registry));
        }),
        { numRuns: runs(200) },
      );
    });
  });
});
