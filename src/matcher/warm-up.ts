import type { ToolDefinition, ToolSequence } from '../core/index.js';
import { isChineseWord, lexiconSettled } from './lexicon.js';
import { matchIntent, type IntentEngine } from './match-intent.js';
import { isCurrent } from './search-index.js';

// V8 compiles a function with its optimising compiler after it has run a while, on threads beside the main one, and
// drops that code (and compiles it again) when a request brings a kind of value its code has not seen: a server's first
// requests paid for both, and on two cores the compiler's threads also took the core the requests ran on (issue #18).
// This many bring most of what a request runs to that compiler (a function run once a request, such as explainIntent,
// needs hundreds of requests); 1,024 measured no better on BFCL's tools.
const MAX_REQUESTS = 512;
// the process's CPU time during the warm-up's steps (not the turns other work takes between them), at most: its own
// and the compiler's it sets going; the wall clock on a loaded machine would also count the waits for a core
const MAX_CPU_MS = 300;
// a request is a sentence or two: an intent's first sentence, cut here
const MAX_TEXT_CHARACTERS = 200;
const SENTENCE_END = /(?<=[.!?。！？])\s*/u;
const SPACES = /\s+/u;
const CAPITALISED = /^\p{Lu}\p{Ll}+$/u;

/**
 * Asks the matcher requests made of the registry's own words, as agents word them, before a server says matching is
 * ready: each of a spread of tools' examples and aliases or intent, alone or with values (quoted, a number, a name,
 * the tool's identifier, in typographic quotes), and reversed (a request nothing matches). Each step is one request,
 * up to 512 of them or 300 ms of CPU time in its steps; it stops early once a successor has updated the index's
 * shared structures. The answers are dropped: nothing is recorded, and the engine (calibration included) is only
 * read. A text with Chinese words is left out while the Chinese-English dictionary is not read, which it would start.
 * Returns how many requests it asked.
 */
export function* warmUpSteps(engine: IntentEngine): Generator<void, number, void> {
  let asked = 0;
  let spent = 0;
  const texts = warmUpTexts(engine.index.tools, MAX_REQUESTS);
  while (spent < MAX_CPU_MS && isCurrent(engine.index)) {
    // making the text reads a tool, which a server from its scan cache makes: counted too
    const started = cpuMs();
    const text = texts.next();
    if (text.done) break;
    const asks = lexiconSettled() || !isChineseWord(text.value);
    if (asks) matchIntent(engine, text.value);
    spent += cpuMs() - started;
    if (!asks) continue;
    asked += 1;
    yield;
  }
  return asked;
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
