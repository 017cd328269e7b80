import { beforeAll, describe, expect, it } from 'vitest';
import type { MatchResult, ToolDefinition } from '../../src/core/index.js';
import { createMatcher, type Matcher } from '../../src/matcher/index.js';
import { makeIndex, makeToolDefinition, scanStarterTools } from './helpers.js';

// userZ7 F6 (issue #11): over a registry of ordinary tools, a request of several content words of which the first tool
// has one was answered `found: true, confidence: "high"` with a wrong tool — `delete the temp folder` → list-files on
// *folder*, `send an email to bob` → send-slack on *send*, `tally the rows of notes.txt` → a notes tool on the file's
// name, a Russian `create a task about the service failing` → a deploy that asks for confirmation. README: `high` when
// the best tool fits the request, `low` when it matches only part of it. An agent calls a high first candidate.
const tool = (name: string, intent: string, examples: string[], params: Record<string, string> = {}, extra: Partial<ToolDefinition> = {}): ToolDefinition =>
  makeToolDefinition({
    name,
    display: name.replace(/-/g, ' '),
    intent,
    examples,
    params_schema: {
      type: 'object',
      properties: Object.fromEntries(Object.entries(params).map(([param, description]) => [param, { type: 'string', description }])),
      required: [],
      additionalProperties: false,
    },
    ...extra,
  });

const TOOLS = [
  tool('currency-convert', 'Convert an amount of money from one currency to another at the day\'s rate', ['convert 100 USD to EUR', 'how much are 50 pounds in yen', '100美元换成人民币是多少', 'сколько будет 100 долларов в рублях'], { amount: 'how much', from: 'currency code', to: 'currency code' }),
  tool('line-count', 'Count the lines, words and bytes of a file', ['how many lines does this file have'], { path: 'the file' }),
  tool('issue-open', 'Open a new issue (a bug report or a task) in the team tracker', ['file a bug report', 'open a ticket for this failure'], { title: 'short summary' }),
  tool('service-deploy', 'Deploy a service to the staging or production server', ['deploy the api to staging', 'roll out the new version', '部署服务', 'задеплой сервис'], { cmd: 'deploy command' }, { constraints: { timeout_ms: 120_000, max_output_bytes: 65_536, require_confirm: true } }),
  tool('folder-size', 'Show how much disk space a folder and its subfolders use', ['which folders take the most space', 'how big is the build folder'], { path: 'folder' }),
  tool('code-search', 'Search the files of the workspace for a text or regular expression and list matching lines', ['find where a function is used', 'search the repo for TODO'], { pattern: 'text or regex' }),
  tool('site-status', 'Check whether a web page or service URL is up and return its HTTP status code', ['is the website up', '检查网站是否正常', 'проверь доступен ли сайт'], { url: 'address' }),
  tool('files-list', 'List the files and folders in a directory', ['what files are in this folder', 'покажи файлы в папке', '列出目录里的文件'], { path: 'folder' }),
  tool('notes-add', 'Save a short note with a title to the team notebook', [], { title: 'the title', body: 'the text' }),
  tool('notes-find', 'Find notes whose title or body contains a word', [], { word: 'a word' }),
  tool('unit-tests', 'Run the project\'s unit tests with npm and report failures', ['run the tests', 'check if the build passes', '跑一下测试', 'запусти тесты']),
  tool('slack-send', 'Send a message to a Slack channel', ['tell the team in slack that the build is green', '发消息到slack频道', 'отправь сообщение в слак'], { channel: 'channel', text: 'message' }),
  tool('log-tail', 'Show the last lines of a log file', [], { path: 'log file', lines: 'how many' }),
  tool('city-weather', 'Get the current weather and temperature for a city', ['what\'s the weather in Berlin', 'is it raining in London', '北京今天天气怎么样', 'какая погода в Москве'], { city: 'city name' }),
];

const confidenceOf = (result: MatchResult): string => (result.found ? `${result.confidence} ${result.candidates[0]?.name}` : 'found: false');

describe('confidence over a registry of ordinary tools (userZ7 F6)', () => {
  let matcher: Matcher;
  beforeAll(async () => {
    matcher = await createMatcher(makeIndex(TOOLS)).ready();
  });

  it.each([
    'delete the temp folder',
    'send an email to bob',
    'restart the nginx server',
    'tally the rows of notes.txt',
    'создай задачу о падении сервиса',
    'echo a word back',
    'show the uptime',
    'переведи текст на французский',
    '查一下汇率',
  ])('answers %s with no high candidate: the first tool has one word of it', (request) => {
    expect(confidenceOf(matcher.matchIntent(request))).not.toMatch(/^high/);
  });

  it.each([
    ['count the lines of a file', 'line-count'],
    ['convert this amount of money to another currency', 'currency-convert'],
    ['send a message to the slack channel', 'slack-send'],
    ['deploy the api service to production', 'service-deploy'],
    ['show the last lines of the log file', 'log-tail'],
    ['list the files in this directory', 'files-list'],
    ['run the unit tests', 'unit-tests'],
    ['what is the weather in Paris', 'city-weather'],
    ['what\'s the weather like in Paris tomorrow', 'city-weather'],
    ['какая погода в Париже завтра', 'city-weather'],
    ['weather in Berlin right now', 'city-weather'],
    ['the weather today', 'city-weather'],
    ['open a new issue for this bug', 'issue-open'],
    ['search the workspace files for a regular expression', 'code-search'],
  ])('answers %s high with %s: it names the tool\'s task plainly', (request, name) => {
    expect(confidenceOf(matcher.matchIntent(request))).toBe(`high ${name}`);
  });

});

// review userZ10, U10-7: over the starter tools a request of one tool's word beside a word no tool has (*commit crimes*,
// *a big cat* by file-read's alias `cat`) was `high`: the word no tool has weighs as much as one a single tool has, so
// the first tool covered exactly half, and only less than half was lowered. A word that says when (*tomorrow*, завтра)
// is the request's value, not half of what it asks for: *the weather today* above stays high.
describe('confidence over the starter tools, when the request has one tool word beside a word no tool has (U10-7)', () => {
  let matcher: Matcher;
  beforeAll(async () => {
    matcher = await createMatcher(await scanStarterTools()).ready();
  });

  it.each(['commit crimes', 'commit war crimes', 'a big cat', 'cat pictures'])('answers %s with no high candidate', (request) => {
    expect(confidenceOf(matcher.matchIntent(request))).not.toMatch(/^high/);
  });

  it.each([
    ['yesterday\'s commits', 'git-ops'],
    ['commits from yesterday', 'git-ops'],
    ['вчерашние коммиты', 'git-ops'],
    ['今天的提交', 'git-ops'],
  ])('answers %s high with %s: the day is its value', (request, name) => {
    expect(confidenceOf(matcher.matchIntent(request))).toBe(`high ${name}`);
  });
});
