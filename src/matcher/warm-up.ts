import type { ToolDefinition, ToolSequence } from '../core/index.js';
import { analyzeWords } from './analyze.js';
import type { RequestTerms } from './features.js';
import { measure } from './features.js';
import { firstStage, type FirstStageHit } from './first-stage.js';
import { isChineseWord, lexiconSettled } from './lexicon.js';
import { matchIntent, type IntentEngine } from './match-intent.js';
import { rankTools } from './rank.js';
import { readRequest } from './request-words.js';
import { rulesFor } from './scripts.js';
import { isCurrent } from './search-index.js';
import { missingToolSuggestion } from './suggestion.js';
import { valueWords } from './value-words.js';
import { wordVectors } from './word-vector-file.js';

// V8 compiles a function with its optimising compiler after it has run a while, on threads beside the main one, and
// drops that code (and compiles it again) when a request brings a kind of value its code has not seen: a server's first
// requests paid for both, and on two cores the compiler's threads also took the core the requests ran on (issue #18).
// This many bring most of what a request runs to that compiler (a function run once a request, such as explainIntent,
// needs hundreds of requests); 1,024 measured no better on BFCL's tools.
const MAX_REQUESTS = 512;
// the process's CPU time during the warm-up's steps (not the turns other work takes between them), at most: its own
// and the compiler's it sets going; the wall clock on a loaded machine would also count the waits for a core
const MAX_CPU_MS = 300;
// A request of the registry's that takes this much CPU runs its loops long enough for V8 to optimise them within it
// (on-stack replacement), and the little it runs once a request is a small part of it: once four of the last five
// did, more teach the compiler nothing. At 100,000 generated tools each took 4-12 ms (~4 the reversed ones, which
// nothing matches, one in five), the twentieth no less than the second, and they were two thirds of the warm-up;
// BFCL's at 3,148 tools take ~0.2 ms (p99 ~2 ms of the process's CPU at load 23): they ask all 512 (issue #18)
const COSTLY_REQUEST_MS = 4;
const COSTLY_OF_LAST = [4, 5] as const;
// a request is a sentence or two: an intent's first sentence, cut here
const MAX_TEXT_CHARACTERS = 200;
const SENTENCE_END = /(?<=[.!?。！？])\s*/u;
const SPACES = /\s+/u;
const CAPITALISED = /^\p{Lu}\p{Ll}+$/u;

/**
 * Asks the matcher requests made of the registry's own words, as agents word them, before a server says matching is
 * ready: each of a spread of tools' examples and aliases or intent, alone or with values (quoted, a number, a name,
 * the tool's identifier, in typographic quotes), and reversed (a request nothing matches); after the first, a few in
 * other scripts (Chinese, Russian, Japanese, Thai). The first and those are asked a stage at a time (`stageSteps`,
 * whose last is the whole request), then each step is one request, up to 512 of the registry's or 300 ms of CPU time
 * in its steps, or until four of the last five of the registry's each took over `costlyRequestMs` (4 ms) of CPU; it
 * stops early once a successor has updated the index's shared structures. The answers are dropped: nothing is
 * recorded, and the engine (calibration included) is only read. While the Chinese-English dictionary is not read, a
 * text of the registry's with Chinese words is left out and the Chinese request is all quoted (a value is not glossed),
 * so the warm-up never starts the read. Returns how many requests it asked.
 */
export function* warmUpSteps(engine: IntentEngine, { costlyRequestMs = COSTLY_REQUEST_MS } = {}): Generator<void, number, void> {
  let asked = 0;
  let spent = 0;
  // whether each of the last five whole requests of the registry's took over costlyRequestMs, the newest last
  const costly: boolean[] = [];
  const [enough, of] = COSTLY_OF_LAST;
  const requests = warmUpRequests(engine.index.tools);
  let vectorsRead = false;
  while (spent < MAX_CPU_MS && costly.filter(Boolean).length < enough && isCurrent(engine.index)) {
    // making the text reads a tool, which a server from its scan cache makes: counted too
    let started = cpuMs();
    const request = requests.next();
    if (request.done) break;
    if (!vectorsRead) {
      // the word vectors' table is decoded in a step of its own, not in the first request's ranking: at 100,000 tools
      // that step was one of the longest holds of the event loop after a restart listened (~50 ms of CPU, issue #18)
      vectorsRead = true;
      wordVectors();
      spent += cpuMs() - started;
      yield;
      if (!isCurrent(engine.index)) return asked;
      started = cpuMs();
    }
    const { text, staged } = request.value;
    if (staged) {
      // its stages end with the whole answer: it is not asked again (at 100,000 generated tools a cold first stage
      // over lists of every tool took ~20-25 ms, and the first request ran it five times)
      for (const stage of stageSteps(engine, text)) {
        stage();
        spent += cpuMs() - started;
        yield;
        // a successor's update between two stages leaves the rest to the check above
        if (!isCurrent(engine.index)) return asked;
        started = cpuMs();
      }
      asked += 1;
      continue;
    }
    const whole = cpuMs();
    matchIntent(engine, text);
    const now = cpuMs();
    spent += now - started;
    asked += 1;
    // the first request and the other scripts' are asked a stage at a time: only whole ones of the registry's count
    if (costly.push(now - whole > costlyRequestMs) > of) costly.shift();
    yield;
  }
  return asked;
}

// Requests in scripts a registry's words may not have, as agents send them: BFCL's first Chinese request met code V8 had
// compiled for one-byte strings only (13 functions dropped at once) and the segmenter's first read of ICU's data, ~20
// ms of the main thread in a first pass at 3,148 tools. The Chinese one is a quotation in the request while the
// Chinese-English dictionary is not read: a value is not glossed, so it does not start the read (a request wrapped whole
// in quotes is the request, and would be glossed; the Japanese one is kana only: kanji are Chinese characters to the
// dictionary).
const CHINESE = '我想知道上海目前的天气状况，顺便用摄氏度显示温度';
const OTHER_SCRIPTS = ['открой файл и покажи последние 10 строк', 'さいきんのファイルをみせてください', 'ช่วยค้นหาไฟล์ล่าสุดให้หน่อย'];

// The warm-up's requests: the registry's own (leaving out those with Chinese words while the dictionary is not read),
// and after its first, those in other scripts; the first and those are asked a stage at a time
function* warmUpRequests(tools: ToolSequence): Generator<{ text: string; staged: boolean }, void, void> {
  let first = true;
  for (const text of warmUpTexts(tools, MAX_REQUESTS)) {
    if (!lexiconSettled() && isChineseWord(text)) continue;
    yield { text, staged: first };
    if (!first) continue;
    first = false;
    yield { text: lexiconSettled() ? CHINESE : `find “${CHINESE}”`, staged: true };
    for (const other of OTHER_SCRIPTS) yield { text: other, staged: true };
  }
}

/**
 * The stages a request runs through, each on its own, in the order a request meets them: the first request after a
 * start runs every one of them for the first time (V8 compiles each function at its first call; the stop lists, a
 * CommonJS package, are read at the first word), ~20-30 ms of the main thread's CPU in one piece (ticks of
 * `hldp serve`, issue #18) that a request by name or /healthz waited for. One stage a step lets the event loop go
 * between them. Each stage only reads the engine.
 */
export function stageSteps(engine: IntentEngine, text: string): Array<() => unknown> {
  const { index, ranking } = engine;
  let request: RequestTerms | undefined;
  const read = (): RequestTerms => (request ??= readRequest(index, text, ranking.valueWeight));
  // each stage's work is done once: the next stage takes what it needs of it, and the whole ranking then runs on code
  // the stages before compiled, not again from cold code
  let hits: FirstStageHit[] | undefined;
  const first = (): FirstStageHit[] => (hits ??= firstStage(index, ranking, read().words.flatMap((word, at) => word.terms.map((term) => ({ term, weight: 1, word: at })))));
  return [
    // the script rules: the stop lists read
    () => rulesFor(text),
    // tokenising and stemming
    () => analyzeWords(text),
    // quoted values, names and codes
    () => valueWords(text),
    // the request's words, their rarity and (when read) their Chinese senses
    read,
    // the first stage's postings
    first,
    // the re-rank's features of one tool
    () => {
      const hit = first()[0];
      return hit === undefined ? undefined : measure(index, hit.position, read(), 1);
    },
    // the whole ranking
    () => rankTools(index, ranking, text),
    // what a found: false answer suggests: the slug of a tool to write
    () => missingToolSuggestion(text),
    // the whole answer, its decision and evidence among it
    () => matchIntent(engine, text),
  ];
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The warm-up's requests over `tools`: `count` of them, from tools spread over the registry, in a fixed order. */
export function* warmUpTexts(tools: ToolSequence, count: number): Generator<string, void, void> {
  if (tools.length === 0) return;
  for (let at = 0; at < count; at++) {
    const text = warmUpText(tools.at(Math.floor((at * tools.length) / count) % tools.length)!, at);
    if (text.length > 0) yield text;
  }
}

// the `at`-th request, made of one tool's words in one of five ways
function warmUpText(tool: ToolDefinition, at: number): string {
  const own = [...tool.examples, ...tool.aliases];
  const sentence = (own.length > 0 && at % 10 === 0 ? own[(at / 10) % own.length]! : tool.intent).split(SENTENCE_END)[0]!.slice(0, MAX_TEXT_CHARACTERS);
  const words = sentence.split(SPACES).filter((word) => word.length > 0);
  if (words.length === 0) return '';
  const properties = tool.params_schema.properties;
  const parameter = (typeof properties === 'object' && properties !== null ? Object.keys(properties)[0] : undefined) ?? words[0]!;
  const name = words.find((word) => CAPITALISED.test(word)) ?? tool.display;
  switch (at % 5) {
    case 0:
      return sentence;
    case 1:
      return `${words.slice(0, 6).join(' ')} '${parameter}' ${(at % 89) + 2} ${name}`;
    case 2:
      return `${words.slice(0, 5).join(' ')} ${tool.name} "${words.slice(-2).join(' ')}"`;
    case 3:
      return `${words.slice(0, 5).join(' ')} “${parameter}” ${name}’s ${(at % 97) / 10}`;
    default:
      return words
        .slice(0, 4)
        .map((word) => [...word.toLowerCase()].reverse().join(''))
        .join(' ');
  }
}
