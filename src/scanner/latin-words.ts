import type { SchemaProblem } from './shape-checker.js';

// a word in Latin letters: what an English request (or one in any language written so) can share with a definition
const LATIN_WORD = /\p{Script=Latin}{2,}/u;

const MATCHED_FIELDS = ['intent', 'display', 'aliases', 'examples'] as const;

function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * A warning for a definition whose intent, display, aliases and examples hold no word in Latin letters (review userZ10,
 * U10-11): the matcher reads a Chinese request's English senses, never an English request's Chinese, so a request in
 * English finds such a tool only by the words of its name. A warning, never an error: a registry for Chinese requests
 * alone is served as written; the author is told what one English example would give.
 */
export function noLatinText(value: Record<string, unknown>): SchemaProblem[] {
  if (typeof value.intent !== 'string' || value.intent.trim() === '') return [];
  if (MATCHED_FIELDS.some((field) => texts(value[field]).some((text) => LATIN_WORD.test(text)))) return [];
  const name = typeof value.name === 'string' ? `'${value.name}'` : 'its name';
  return [
    {
      path: ['intent'],
      atKey: false,
      message: `no word in Latin letters in 'intent', 'display', 'aliases' or 'examples': a request in English finds this tool only by the words of ${name} (the matcher reads a Chinese request's English senses, not an English request's Chinese); add an example in English as a user would ask for it, or the intent's English beside it, as the starter tools have it (intent: 查看本地git仓库的提交记录 (inspect a local git repository's commit log))`,
    },
  ];
}
