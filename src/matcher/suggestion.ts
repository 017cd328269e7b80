import anyAscii from 'any-ascii';
import { analyzeWords } from './analyze.js';

const MAX_SLUG_WORDS = 4;
const MAX_SLUG_LENGTH = 64;
// the slug takes the first few words: a pasted document is not analysed in full for them
const MAX_READ_WORDS = 16;
const MAX_READ_CHARACTERS = 1024;

// a word already in ASCII is its own transliteration
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Reads the transliteration tables in once (the first non-ASCII word otherwise pays ~20 ms for it): for a server
 * preparing its matcher, so that the first request answered `found: false` does not.
 */
export function warmUpTransliteration(): void {
  anyAscii('查看 Привет');
}

/** A folder name for a tool that would answer `intent`: its first content words, transliterated to ASCII, kebab-case. */
export function toolSlug(intent: string): string {
  const parts: string[] = [];
  for (const { word } of analyzeWords(intent.slice(0, MAX_READ_CHARACTERS), MAX_READ_WORDS)) {
    const ascii = (ASCII.test(word) ? word : anyAscii(word))
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '');
    if (ascii.length > 0 && !parts.includes(ascii)) parts.push(ascii);
    if (parts.length === MAX_SLUG_WORDS) break;
  }
  const slug = parts.join('-').slice(0, MAX_SLUG_LENGTH).replace(/-+$/, '');
  return slug.length > 0 ? slug : 'new-tool';
}

/** What to tell the agent when no tool fits: the tool is not in the repository yet, and where to write it. */
export function missingToolSuggestion(intent: string): string {
  const slug = toolSlug(intent);
  return (
    `此工具尚不在仓库中，需铸渊新建 - no tool in the repository fits this intent yet; ` +
    `write its definition at tools/${slug}/TOOL.hdlp (name: ${slug}), then rescan`
  );
}
