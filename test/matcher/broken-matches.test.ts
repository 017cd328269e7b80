import { describe, expect, it } from 'vitest';
import type { Diagnostic, MatchResult, ToolIndex } from '../../src/core/index.js';
import { brokenMatches, formatMatchResult, MAX_BROKEN_MATCHES } from '../../src/matcher/index.js';
import { withBrokenMatches } from '../../src/matcher/broken-matches.js';

// Review userZ, Z8: a request that the repository's broken tool would fit was told "此工具尚不在仓库中，需铸渊新建" (write
// a new tool), inviting a duplicate of what its author only needs to fix.

function error(file: string, message = 'executor must be one of gatekeeper, hldp-api, git-forgejo, shell', line = 4): Diagnostic {
  return { file, line, column: 11, severity: 'error', code: 'SCHEMA_VIOLATION', message };
}

function indexWith(errors: Diagnostic[], tools: string[] = []): ToolIndex {
  const served = tools.map((name) => ({ name }) as ToolIndex['tools'][number]);
  return { source: 'test', commit: 'c1', tools: served, toolsets: [], skills: [], errors, warnings: [], scanned_at: '2026-12-05T00:00:00.000Z' };
}

const nothing: MatchResult = { found: false, suggestion: '此工具尚不在仓库中，需铸渊新建 - no tool in the repository fits this intent yet; write its definition at tools/send-email/TOOL.hdlp (name: send-email), then rescan', near: [] };

describe('brokenMatches', () => {
  describe('when a broken tool folder is named like the request', () => {
    it('names it, its file and its first error, counting the others', () => {
      const index = indexWith([error('tools/send-email/TOOL.hdlp'), error('tools/send-email/TOOL.hdlp', 'author is required', 9)]);
      expect(brokenMatches(index, 'send an email to the team')).toEqual([
        { name: 'send-email', path: 'tools/send-email/TOOL.hdlp', error: 'tools/send-email/TOOL.hdlp:4:11: executor must be one of gatekeeper, hldp-api, git-forgejo, shell (and 1 more)' },
      ]);
    });

    it('matches word forms, and half of the name is enough', () => {
      const index = indexWith([error('tools/git-ops/TOOL.hdlp'), error('tools/emailSender/TOOL.hdlp')]);
      expect(brokenMatches(index, 'what changed in git lately').map((match) => match.name)).toEqual(['git-ops']);
      expect(brokenMatches(index, 'emails for everyone').map((match) => match.name)).toEqual(['emailSender']);
    });
  });

  describe('when nothing broken is named like the request', () => {
    it.each([
      ['a name sharing less than half its words', 'tools/send-bulk-email/TOOL.hdlp', 'email'],
      ['a toolset', 'toolsets/email/TOOLSET.hdlp', 'send an email'],
      ['a skill', 'skills/email/SKILL.md', 'send an email'],
      ['a policy', 'policies/email.hdlp', 'send an email'],
      ['a file deeper in a tool folder', 'tools/email/extra/TOOL.hdlp', 'send an email'],
      ['stop words only', 'tools/the-of/TOOL.hdlp', 'the list of things'],
    ])('names none for %s', (_case, file, intent) => {
      expect(brokenMatches(indexWith([error(file)]), intent)).toEqual([]);
    });

    it('names no folder a served tool has the name of (that tool is the one the ranking offers)', () => {
      expect(brokenMatches(indexWith([error('tools/send-email/TOOL.hdlp')], ['send-email']), 'send an email')).toEqual([]);
    });
  });

  it(`names at most ${MAX_BROKEN_MATCHES}, the best fitting first`, () => {
    const index = indexWith(['mail-send', 'email-fetch', 'send-email', 'email-archive', 'email-send'].map((name) => error(`tools/${name}/TOOL.hdlp`)));
    expect(brokenMatches(index, 'send an email').map((match) => match.name)).toEqual(['email-send', 'send-email', 'email-archive']);
  });

  describe("when the broken file's name and error are hostile", () => {
    it('escapes controls and hidden characters, and bounds both', () => {
      const name = `mail\u202e\u001b[2J${'x'.repeat(300)}`;
      const message = `bad\nline\u200b${'y'.repeat(5000)}`;
      const [match] = brokenMatches(indexWith([error(`tools/${name}/TOOL.hdlp`, message)]), 'mail it');
      expect(match!.name).toContain('mail\\u202e\\x1b[2J');
      expect(match!.name.length).toBeLessThan(200);
      expect(match!.error).toContain('bad\\nline\\u200b');
      expect(match!.error.length).toBeLessThan(700);
      expect(JSON.stringify(match)).not.toMatch(/[\u0000-\u001f\u202e\u200b]/);
    });
  });
});

describe('withBrokenMatches', () => {
  const index = indexWith([error('tools/send-email/TOOL.hdlp')]);

  it('tells a found: false answer to fix the broken tool rather than write a new one', () => {
    const answer = withBrokenMatches(nothing, index, 'send an email');
    expect(answer).toMatchObject({ found: false, broken: [{ name: 'send-email' }] });
    expect(!answer.found && answer.suggestion).toMatch(/^the tool 'send-email' at tools\/send-email\/TOOL\.hdlp would fit, but its definition is broken, so it is not served: tools\/send-email\/TOOL\.hdlp:4:11: executor must be .*; fix it rather than writing a new one/);
    expect(formatMatchResult(answer)).toContain('broken, not served (fix rather than write again):\n  send-email  tools/send-email/TOOL.hdlp:4:11:');
  });

  it('adds the broken tools to a low answer and leaves a confident one as it is', () => {
    const candidate = { name: 'mailer', display: 'Mailer', intent: 'mails', score: 1, matched: [], params_schema: {} };
    const low: MatchResult = { found: true, confidence: 'low', stage: 'lexical', candidates: [candidate] };
    const high: MatchResult = { ...low, confidence: 'high' };
    expect(withBrokenMatches(low, index, 'send an email')).toEqual({ ...low, broken: [expect.objectContaining({ name: 'send-email' })] });
    expect(withBrokenMatches(high, index, 'send an email')).toBe(high);
    expect(formatMatchResult(withBrokenMatches(low, index, 'send an email'))).toMatch(/call one with: hldp call mailer .*\nbroken, not served/);
  });

  it('leaves an answer without a fitting broken tool as it is', () => {
    expect(withBrokenMatches(nothing, index, 'show the weather')).toBe(nothing);
  });
});
