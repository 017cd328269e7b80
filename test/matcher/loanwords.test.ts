import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult } from '../../src/core/index.js';
import { createMatcher, type Matcher } from '../../src/matcher/index.js';
import { loanwordGlosses, romanise, spellingOf } from '../../src/matcher/loanwords.js';
import { readRequest } from '../../src/matcher/request-words.js';
import { buildSearchIndex } from '../../src/matcher/search-index.js';
import { runs } from '../helpers/property-runs.js';
import { makeIndex, makeToolDefinition } from './helpers.js';

function names(result: MatchResult): string[] {
  return result.found ? result.candidates.map((candidate) => candidate.name) : [];
}

const english = (name: string, intent: string, param: string) =>
  makeToolDefinition({
    name,
    display: name,
    intent,
    why: 'agents ask for it',
    params_schema: { type: 'object', properties: { [param]: { type: 'string', description: `the ${param}` } }, required: [], additionalProperties: false },
  });

// tools described only in English, as most registries are; requests in languages that borrow their technical words
const TOOLS = [
  english('commit-history', 'Show the commit history of a repository', 'repository'),
  english('run-script', 'Run a shell script', 'script'),
  english('read-configuration', 'Print the configuration of a service', 'service'),
  english('send-email', 'Send an email message to a recipient', 'recipient'),
];

describe('matchIntent with requests in other languages against tools described only in English', () => {
  let matcher: Matcher;
  beforeAll(() => {
    matcher = createMatcher(makeIndex(TOOLS));
  });

  describe('when the request borrows the tool\'s English words', () => {
    it.each([
      ['покажи коммиты в репозитории', 'commit-history'],
      ['最後のコミットを見せて', 'commit-history'],
      ['커밋 목록', 'commit-history'],
      ['запусти скрипт', 'run-script'],
      ['このスクリプトを実行して', 'run-script'],
      ['muestra la configuración del servicio', 'read-configuration'],
      ['Konfiguration des Dienstes anzeigen', 'read-configuration'],
      ['ejecuta el script de la carpeta', 'run-script'],
    ])('offers the tool for %s', (request, tool) => {
      expect(names(matcher.matchIntent(request))).toContain(tool);
    });
  });

  describe('when the request borrows no word of any tool', () => {
    it.each([['закажи пиццу на вечер'], ['pide una pizza para esta noche'], ['ピザを注文して'], ['bestell eine Pizza für heute Abend']])(
      'returns found: false for %s',
      (request) => {
        expect(matcher.matchIntent(request).found).toBe(false);
      },
    );
  });

  describe('when the request is in English', () => {
    it('does not take a word no tool has for one that is spelled alike', () => {
      // "scripture" begins as "script" does; an English request's unknown word is not a borrowed one
      expect(matcher.matchIntent('recite the scriptures to me').found).toBe(false);
    });
  });

  describe('when the request is in Spanish', () => {
    it('leaves its function words out: "de" and "la" match no tool', () => {
      const words = readRequest(buildSearchIndex(makeIndex(TOOLS).tools), 'muestra la configuración de la red', 1).words.map((word) => word.word);
      expect(words).not.toContain('la');
      expect(words).not.toContain('de');
    });
  });
});

describe('loanwordGlosses', () => {
  const index = buildSearchIndex(makeIndex(TOOLS).tools);

  it.each([
    ['коммит', 'commit'],
    ['コミット', 'commit'],
    ['커밋', 'commit'],
    ['скрипт', 'script'],
    ['スクリプト', 'script'],
    ['스크립트', 'script'],
    ['репозиторий', 'repositori'],
    ['configuración', 'configur'],
    ['Konfiguration', 'configur'],
  ])('takes %s for the registry\'s stem %s', (word, stem) => {
    expect(loanwordGlosses(index, word.toLowerCase()).senses).toEqual([[stem]]);
  });

  it.each([['пицца'], ['ピザ'], ['mensaje'], ['重要'], ['a']])('finds no stem for %s', (word) => {
    expect(loanwordGlosses(index, word).senses).toEqual([]);
  });

  it('returns at most two one-term senses of the index\'s own terms for any word, never throwing', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('к', 'о', 'м', 'и', 'т', 'コ', 'ミ', 'ッ', 'ト', '커', '밋', 'c', 'ó', 'ß'), fc.string({ unit: 'binary', maxLength: 1 })), maxLength: 16 }), (word) => {
        const { senses } = loanwordGlosses(index, word);
        expect(senses.length).toBeLessThanOrEqual(2);
        for (const sense of senses) {
          expect(sense).toHaveLength(1);
          expect(index.documentFrequency.has(sense[0]!)).toBe(true);
        }
      }),
      { numRuns: runs(500) },
    );
  });

  it('spells any text in lower-case ASCII letters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 24 }), (text) => {
        expect(spellingOf(romanise(text))).toMatch(/^[a-z]*$/);
      }),
      { numRuns: runs(500) },
    );
  });
});

// Review userZ9, U9-5: Cyrillic writes English's long i as ай, which any-ascii spells ai: файл (file) was taken for
// *fail*, and a registry with a tool that fails on purpose offered it, alone, for every Russian request about a file.
describe('a Cyrillic ай before a consonant, against a registry with both file and fail', () => {
  const LONG_I = [
    english('write-note', 'Write a note file in the workspace', 'path'),
    english('read-note', 'Read a note file from the workspace', 'path'),
    english('fail-loud', 'Exit with a chosen status: fail on purpose, to test failure handling', 'status'),
    english('site-check', 'Check that a web site answers', 'address'),
    english('driver-list', 'List the loaded kernel drivers', 'filter'),
  ];
  const index = buildSearchIndex(makeIndex(LONG_I).tools);

  it.each([
    ['файл', 'file'],
    ['файлы', 'file'],
    ['сайт', 'site'],
    ['сайта', 'site'],
    ['драйверы', 'driver'],
  ])('takes %s for the registry\'s stem %s, as English writes the sound', (word, stem) => {
    expect(loanwordGlosses(index, word).senses).toEqual([[stem]]);
  });

  it('still takes a word whose ай has no such reading in the registry as any-ascii spells it (фейл stays fail)', () => {
    expect(loanwordGlosses(index, 'фейл').senses).toEqual([]);
    expect(loanwordGlosses(buildSearchIndex(makeIndex([LONG_I[2]!]).tools), 'файл').senses).toEqual([['fail']]);
  });

  it('offers the file tools, not the failing one, for Russian requests about a file', () => {
    const matcher = createMatcher(makeIndex(LONG_I));
    for (const request of ['запиши заметку в файл', 'прочитай файл заметки']) {
      const found = names(matcher.matchIntent(request));
      expect(found[0], request).toMatch(/^(write|read)-note$/);
      expect(found, request).not.toContain('fail-loud');
    }
  });
});
