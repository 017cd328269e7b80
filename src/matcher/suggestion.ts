import { createRequire } from 'node:module';
import { analyzeWords } from './analyze.js';

const MAX_SLUG_WORDS = 4;
const MAX_SLUG_LENGTH = 64;
// the slug takes the first few words: a pasted document is not analysed in full for them
const MAX_READ_WORDS = 16;
const MAX_READ_CHARACTERS = 1024;

// a word already in ASCII is its own transliteration
const ASCII = /^[\x00-\x7f]*$/;

type Transliterate = (text: string) => string;

// any-ascii (0.55 MB of tables, ~20-30 ms of CPU to load) is loaded when a matcher is prepared or at its first use,
// not with this module: a server listens first (issue #18)
let anyAscii: Transliterate | undefined;

/**
 * Loads any-ascii: for a matcher being prepared. It is required, as `transliterator` does, and imported only where
 * this Node cannot require an ES module (before 20.19): a require() of it while an import() of it is still in
 * flight fails (ERR_INTERNAL_ASSERTION, "not yet fully loaded"), so the two are never mixed where require() works.
 */
export async function loadTransliteration(): Promise<void> {
  try {
    transliterator();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw error;
    anyAscii ??= (await import('any-ascii')).default;
  }
}

// any-ascii at its first use: an ES module, which require() loads from Node 20.19 and 22.12 on
export function transliterator(): Transliterate {
  anyAscii ??= (createRequire(import.meta.url)('any-ascii') as { default: Transliterate }).default;
  return anyAscii;
}

/**
 * Reads the transliteration tables in once (the first non-ASCII word otherwise pays ~20 ms for it): for a server
 * preparing its matcher, so that the first request answered `found: false` does not.
 */
export function warmUpTransliteration(): void {
  transliterator()('查看 Привет');
}

/** A folder name for a tool that would answer `intent`: its first content words, transliterated to ASCII, kebab-case. */
export function toolSlug(intent: string): string {
  const parts: string[] = [];
  for (const { word } of analyzeWords(intent.slice(0, MAX_READ_CHARACTERS), MAX_READ_WORDS)) {
    const ascii = (ASCII.test(word) ? word : transliterator()(word))
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '');
    if (ascii.length > 0 && !parts.includes(ascii)) parts.push(ascii);
    if (parts.length === MAX_SLUG_WORDS) break;
  }
  const slug = parts.join('-').slice(0, MAX_SLUG_LENGTH).replace(/-+$/, '');
  return slug.length > 0 ? slug : 'new-tool';
}

// what TOOL.hdlp's `name` may be (schemas/tool.schema.json)
const TOOL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * What to tell the agent when no tool fits: the tool is not in the repository yet, and where to write it. A name the
 * agent called is kept as it is when it may be a tool's name: slugged, `get_weather` was told "no tool named 'weather'",
 * and the tool written as told still did not answer the agent's own calls of `get_weather` (review userX, X1).
 */
export function missingToolSuggestion(intent: string, asked: 'intent' | 'name' = 'intent'): string {
  const kept = asked === 'name' && TOOL_NAME.test(intent);
  const slug = kept ? intent : toolSlug(intent);
  // a tool called by a name the registry lacks was told no tool fit "this intent", though none was given (review userU, F8)
  const missing = asked === 'intent' ? 'no tool in the repository fits this intent yet'
    : kept ? `no tool named '${slug}' is in the repository yet`
    : `no tool named '${intent.slice(0, 128)}' is in the repository, and a tool cannot be named so (letters, digits, '.', '_' and '-', starting with a letter or digit, at most 128)`;
  return `此工具尚不在仓库中，需铸渊新建 - ${missing}; write its definition at tools/${slug}/TOOL.hdlp (name: ${slug}), then rescan`;
}
