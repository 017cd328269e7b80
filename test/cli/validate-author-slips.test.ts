// Review userY, Y2 and Y7: tool authors' common slips, each told at its own file:line:col in plain words. An `http:`
// block's first error hid the block's others (a `query` naming no parameter behind a wrong `path`) and its rules came
// in schema-speak (`must be a string matching ^/|^\{\+`); `type: int` was "must be a JSON Schema type" with no word of
// `integer`; `required: true` inside a full JSON Schema was "must be array"; an `argv:` list not indented under its key
// was three errors about implicit keys, or "must be object"; a template no call picks, and an `output_schema` that is
// no JSON Schema, passed without a word.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeTempDir, writeFiles } from '../helpers/git.js';
import { runCli, type CliRun } from '../helpers/run-cli.js';

const HEAD = (name: string, executor: string, method = 'run'): string => `name: ${name}\ndisplay: ${name}\nintent: does ${name} things\nmethod: ${method}\nexecutor: ${executor}\n`;
const TAIL = 'author: TEST-001\ncreated: 2026-05-31\nwhy: tests need it\n';

/** Each slip: its tool, its file's text, and what `hldp validate` says of it, line by line. */
const SLIPS: Array<{ slip: string; name: string; text: string | Uint8Array; lines: string[] }> = [
  {
    slip: 'an http block with a request line for its method, a path without its slash and three names of no parameter',
    name: 'api-all',
    text: `${HEAD('api-all', 'hldp-api', 'get')}params_schema:\n  id: { type: string, required: true }\nhttp:\n  method: GET /items\n  path: items/{id}\n  query: [nope]\n  headers:\n    X-Trace: "{trace}"\n  body: [gone]\n${TAIL}`,
    lines: [
      "9:11: error: 'http.method' must be an HTTP method, one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (letters only), or one '{param}' naming it; did you mean 'GET', with '/items' in 'http.path'?",
      "10:9: error: 'http.path' must be a path that starts with / (such as /v1/items/{id}), or a '{+param}' holding the whole path; did you mean '/items/{id}'?",
      "11:11: error: query parameter 'nope' is not a parameter in 'params_schema' (declared: id)",
      "13:14: error: placeholder 'trace' is not a parameter in 'params_schema' (declared: id)",
      "14:10: error: body parameter 'gone' is not a parameter in 'params_schema' (declared: id)",
    ],
  },
  {
    slip: 'an http block without its path, with a method no server knows, a misspelt field and a query naming no parameter',
    name: 'api-nopath',
    text: `${HEAD('api-nopath', 'hldp-api', 'get')}params_schema:\n  id: { type: string }\nhttp:\n  method: FETCH\n  query: [nope]\n  bodyy: [id]\n${TAIL}`,
    lines: [
      "9:3: error: missing required field 'http.path'",
      "9:11: warning: 'http.method' is 'FETCH', which is not one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS; did you mean 'PATCH'? It is sent as FETCH: keep it only if this API has such a method (WebDAV's PROPFIND, say); a server without it answers 405 or 501 to every call",
      "10:11: error: query parameter 'nope' is not a parameter in 'params_schema' (declared: id)",
      "11:3: error: unknown field 'http.bodyy'; did you mean 'body'?; allowed: api, method, path, query, body, headers",
    ],
  },
  {
    slip: "an http method in lower case, a number for a header and a parameter's bare name for the body",
    name: 'api-post',
    text: `${HEAD('api-post', 'hldp-api', 'create')}params_schema:\n  id: { type: string, required: true }\nhttp:\n  method: post\n  path: /items\n  headers:\n    X-Count: 3\n  body: id\n${TAIL}`,
    lines: [
      "9:11: warning: 'http.method' is 'post': HTTP methods are written upper case, and it is sent as POST; did you mean 'POST'?",
      "12:14: error: 'http.headers.X-Count' must be string: YAML read 3 as a number; quote it if it is text ('3')",
      "13:9: error: 'http.body' must be a list of parameter names, or one '{param}' whose value is the whole body; did you mean '{id}' (its value is the whole body) or [id] (a JSON object holding it)?",
    ],
  },
  {
    slip: "a shorthand params schema with other languages' type names",
    name: 'types-short',
    text: `${HEAD('types-short', 'shell')}params_schema:\n  count: { type: int, required: true }\n  name: { type: str }\n  ratio: { type: float }\n  flag: { type: bool }\n  tags: { type: [list, "null"] }\nshell:\n  argv: [echo, "{count}"]\n${TAIL}`,
    lines: [
      "7:18: error: 'params_schema.count.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean 'integer'?",
      "8:17: error: 'params_schema.name.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean 'string'?",
      "9:18: error: 'params_schema.ratio.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean 'number'?",
      "10:17: error: 'params_schema.flag.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean 'boolean'?",
      "11:17: error: 'params_schema.tags.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean [array, null]?",
    ],
  },
  {
    slip: "a full params schema with other languages' type names, once each",
    name: 'types-full',
    text: `${HEAD('types-full', 'shell')}params_schema:\n  type: object\n  properties:\n    count: { type: int }\n    names: { type: array, items: { type: dict } }\n  required: [count]\nshell:\n  argv: [echo, "{count}"]\n${TAIL}`,
    lines: [
      "9:20: error: 'params_schema.properties.count.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean 'integer'?",
      "10:42: error: 'params_schema.properties.names.items.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean 'object'?",
    ],
  },
  {
    slip: "'required: true' on a property of a full JSON Schema",
    name: 'required-flag',
    text: `${HEAD('required-flag', 'shell')}params_schema:\n  type: object\n  properties:\n    path:\n      type: string\n      required: true\nshell:\n  argv: [ls, "--", "{path}"]\n${TAIL}`,
    // one error: the argv element is not also told that 'path' may be left out
    lines: ["11:7: error: 'required: true' on a property is not JSON Schema (an old draft's habit): in JSON Schema `required` is a list on the object: add 'path' to params_schema.required (required: [path]) and remove this line"],
  },
  {
    slip: "an argv written at the top level, not indented under 'shell:'",
    name: 'argv-sibling',
    text: `${HEAD('argv-sibling', 'shell')}params_schema: {}\nshell:\nargv:\n  - ls\n${TAIL}`,
    lines: [
      "7:7: error: 'shell' is empty: 'argv' below it is not indented under it, so YAML read it as a field of the tool; indent it under 'shell:'",
      "8:1: error: unknown field 'argv': it is a field of 'shell', not of the tool ('shell' is empty: nothing is indented under it); indent 'argv' and the lines under it under 'shell:'",
    ],
  },
  {
    // review userZ10, U10-13: it was "'params_schema' must be object" and "unknown field 'word'; allowed: …", unlike shell's
    slip: "parameters written at the top level, not indented under 'params_schema:'",
    name: 'params-sibling',
    text: `${HEAD('params-sibling', 'shell')}params_schema:\nword: { type: string, required: true }\ncount:\n  type: integer\nshell:\n  argv: [echo, "{word}", "{count}"]\n${TAIL}`,
    lines: [
      "6:15: error: 'params_schema' is empty: 'word', 'count' below it are not indented under it, so YAML read them as fields of the tool; indent them under 'params_schema:'",
      "7:1: error: unknown field 'word': it is a parameter written below 'params_schema', not a field of the tool ('params_schema' is empty: nothing is indented under it); indent 'word' and the lines under it under 'params_schema:'",
      "8:1: error: unknown field 'count': it is a parameter written below 'params_schema', not a field of the tool ('params_schema' is empty: nothing is indented under it); indent 'count' and the lines under it under 'params_schema:'",
    ],
  },
  {
    slip: "a tool without parameters and without 'params_schema'",
    name: 'params-missing',
    text: `${HEAD('params-missing', 'shell')}shell:\n  argv: [date]\n${TAIL}`,
    lines: ["1:1: error: missing required field 'params_schema': a tool without parameters writes params_schema: {}"],
  },
  {
    slip: "an argv list indented less than 'argv:'",
    name: 'argv-outdented',
    text: `${HEAD('argv-outdented', 'shell')}params_schema: {}\nshell:\n  argv:\n- ls\n- -la\n${TAIL}`,
    lines: ["9:1: error: the list under 'argv' (line 8) is indented less than 'argv' itself, so YAML cannot read it as its value: indent each '- ' item at least as far as 'argv' (column 3)"],
  },
  {
    slip: "an empty 'argv:'",
    name: 'argv-empty',
    text: `${HEAD('argv-empty', 'shell')}params_schema:\n  op: { type: string, enum: [a] }\nshell:\n  argv:\n  select: op\n${TAIL}`,
    lines: ["9:8: error: 'shell.argv' must be a list of arguments, or a map of such lists keyed by the value of shell.select: YAML read no value after 'argv:'; write it on that line, or on the lines below indented further than 'argv'"],
  },
  {
    slip: 'a template its select parameter never picks',
    name: 'dead-template',
    text: `${HEAD('dead-template', 'shell')}params_schema:\n  op: { type: string, enum: [log, status], required: true }\nshell:\n  select: op\n  argv:\n    log: [git, log]\n    status: [git, status]\n    stauts: [git, status, --short]\n${TAIL}`,
    lines: ["13:5: warning: template 'shell.argv.stauts' is never used: 'shell.select' picks by parameter 'op', which takes only 'log', 'status'; remove the template, or add 'stauts' to the enum of 'op'"],
  },
  {
    slip: 'an output_schema that is no JSON Schema',
    name: 'output-schema',
    text: `${HEAD('output-schema', 'shell')}params_schema: {}\nshell:\n  argv: [echo, "{}"]\noutput_schema:\n  type: objekt\n  properties:\n    count: { type: integer, minimum: low }\n${TAIL}`,
    lines: [
      "10:9: warning: 'output_schema.type' must be a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them; did you mean 'object'?",
      "12:38: warning: 'output_schema.properties.count.minimum' is not valid JSON Schema: must be number",
    ],
  },
  // review userZ2, U1/U10: a copied draft-07 output_schema threw ("report this as a brush-holder bug") and dropped a
  // tool that served; a tuple `items: [...]` was the same line 8 times. A reference never checked: warnings, served.
  {
    slip: 'an output_schema copied from draft 07, with its $schema line, a tuple and a boolean exclusiveMinimum',
    name: 'output-draft7',
    text: `${HEAD('output-draft7', 'shell')}params_schema: {}\nshell:\n  argv: [echo, "{}"]\noutput_schema:\n  $schema: "http://json-schema.org/draft-07/schema#"\n  type: object\n  properties:\n    pair:\n      type: array\n      items: [{type: string}, {type: number}]\n    size: { type: number, minimum: 0, exclusiveMinimum: true }\n${TAIL}`,
    lines: [
      "10:12: warning: $schema 'http://json-schema.org/draft-07/schema#' is not JSON Schema 2020-12, which this gateway reads; remove the line or set it to https://json-schema.org/draft/2020-12/schema",
      "15:14: warning: 'output_schema.properties.pair.items' is not valid JSON Schema: a list under `items` is an older draft's tuple; in JSON Schema 2020-12 a tuple is `prefixItems: [...]`",
      "16:57: warning: 'output_schema.properties.size.exclusiveMinimum' is not valid JSON Schema: a boolean here is draft-04's; write the bound itself: `exclusiveMinimum: 0` instead of `minimum: 0` with `exclusiveMinimum: true`",
    ],
  },
  {
    slip: 'a params_schema naming draft 07 in its $schema line, which it is not checked as',
    name: 'params-draft7',
    text: `${HEAD('params-draft7', 'shell')}params_schema:\n  $schema: "http://json-schema.org/draft-07/schema#"\n  type: object\n  properties:\n    path: { type: string }\n  required: [path]\nshell:\n  argv: [ls, --, "{path}"]\n${TAIL}`,
    lines: [
      "7:12: error: $schema 'http://json-schema.org/draft-07/schema#' is not JSON Schema 2020-12, which this gateway reads; remove the line or set it to https://json-schema.org/draft/2020-12/schema",
    ],
  },
  // review userZ7, F1 and F2: a placeholder written unquoted, a colon in an intent and a ' #' inside a flow list were
  // the YAML library's words (the last at a line past the file's end), none saying to quote
  {
    slip: 'a placeholder written unquoted in argv',
    name: 'bare-placeholder',
    text: `${HEAD('bare-placeholder', 'shell')}params_schema:\n  word: { type: string, required: true }\nshell:\n  argv: [echo, {word}]\n${TAIL}`,
    lines: ["9:16: error: 'shell.argv.1' must be an argument (text; a number or true/false is taken as its text), or a list of them (an optional group): {word} written unquoted is a YAML mapping, not text; write it quoted, \"{word}\""],
  },
  {
    slip: "an intent holding ': '",
    name: 'colon-intent',
    text: `name: colon-intent\ndisplay: colon-intent\nintent: Print the date: in ISO format\nmethod: run\nexecutor: shell\nparams_schema: {}\nshell:\n  argv: [date, -I]\n${TAIL}`,
    lines: ["3:9: error: the value of 'intent' holds ': ', which YAML reads as the start of a mapping inside it: quote the whole value (intent: \"…\")"],
  },
  {
    slip: "an example holding ' #' in a flow list",
    name: 'hash-example',
    text: `${HEAD('hash-example', 'shell')}examples: [tell the team the build is green, notify #ops, 发消息到slack频道]\nparams_schema: {}\nshell:\n  argv: [echo, hi]\n${TAIL}`,
    lines: ["6:53: error: ' #' inside [ … ] starts a YAML comment, so the rest of line 6, its closing bracket too, is not read: quote the item that holds it (\"notify #ops\")"],
  },
  // review userZ7, F3, F5, F8, F13 and F16: slips told without their fix — no word on a literal `{x}` in argv (curl's
  // -w "%{http_code}"), on what `created` takes, on the near parameter or keyword, on where a non-ASCII name goes, on the
  // list a one-line argv would be, on where a timeout is written; a file not UTF-8 was told at 1:1
  {
    slip: "curl's own %{http_code} in an argv element",
    name: 'curl-status',
    text: `${HEAD('curl-status', 'shell')}params_schema:\n  url: { type: string, required: true }\nshell:\n  argv: [curl, -s, -o, /dev/null, -w, "%{http_code}", --, "{url}"]\n${TAIL}`,
    lines: ["9:39: error: placeholder 'http_code' is not a parameter in 'params_schema' (declared: url); to pass a literal {http_code} (curl -w \"%{http_code}\", jq '{name}'), use shell.script: argv has no escape for braces, a script's braces are the shell's own"],
  },
  {
    slip: 'a placeholder one letter off a parameter',
    name: 'tail-lines',
    text: `${HEAD('tail-lines', 'shell')}params_schema:\n  path: { type: string, required: true }\n  lines: { type: integer, default: 10 }\nshell:\n  argv: [tail, -n, "{line}", --, "{path}"]\n${TAIL}`,
    lines: ["10:20: error: placeholder 'line' is not a parameter in 'params_schema' (declared: path, lines); did you mean 'lines'?"],
  },
  {
    slip: "a misspelt 'required' in a shorthand parameter, and no 'created'",
    name: 'no-created',
    text: `${HEAD('no-created', 'shell')}params_schema:\n  path: { type: string, requird: true }\nshell:\n  argv: [wc, -l]\nauthor: TEST-001\nwhy: tests need it\n`,
    lines: [
      "1:1: error: missing required field 'created': the day the tool was written, an ISO date such as created: 2026-05-31 (a time may follow: 2026-05-31T14:30Z)",
      "7:25: error: unknown JSON Schema keyword 'requird' in 'params_schema'; did you mean 'required'?",
    ],
  },
  {
    slip: 'a file saved as Latin-1',
    name: 'latin1',
    text: Buffer.from(`${HEAD('latin1', 'shell')}why2: Zähle die Zeilen\n${TAIL}`, 'latin1'),
    lines: ['6:8: error: TOOL.hdlp is not UTF-8 text; save it as UTF-8 (byte 0xE4 here is not UTF-8: a Latin-1 or Windows-1252 file?)'],
  },
  {
    slip: 'a name in Chinese',
    name: '天气',
    text: `${HEAD('天气', 'shell')}params_schema: {}\nshell:\n  argv: [date]\n${TAIL}`,
    lines: ["1:7: error: 'name' must be ASCII letters, digits, '.', '_' or '-', starting with a letter or digit, no spaces, at most 128 characters; names in other scripts go in 'aliases' (any language): name: weather in tools/weather/, with aliases: [天气]"],
  },
  {
    slip: 'a query written as one name, not a list',
    name: 'api-query',
    text: `${HEAD('api-query', 'hldp-api', 'get')}params_schema:\n  fields: { type: string }\nhttp:\n  path: /items\n  query: fields\n${TAIL}`,
    lines: ["10:10: error: 'http.query' must be array; write the parameters sent in the query as a list: query: [fields]"],
  },
  {
    slip: 'an argv written as one command line, and a timeout beside it in seconds',
    name: 'argv-line',
    text: `${HEAD('argv-line', 'shell')}params_schema:\n  folder: { type: string, required: true }\n  out: { type: string, default: out.tar.gz }\nshell:\n  argv: "tar czf {out} {folder}"\n  timeout: 10\n${TAIL}`,
    lines: [
      "10:9: error: 'shell.argv' must be a list of arguments, or a map of such lists keyed by the value of shell.select; write it as a list, one argument each: argv: [tar, czf, \"{out}\", \"{folder}\"]",
      "11:3: error: unknown field 'shell.timeout': a tool's deadline is 'constraints.timeout_ms', in milliseconds (constraints: {timeout_ms: 10000} for 10 s)",
    ],
  },
  {
    slip: "a timeout_ms under 'shell:'",
    name: 'shell-timeout-ms',
    text: `${HEAD('shell-timeout-ms', 'shell')}params_schema: {}\nshell:\n  argv: [sleep, 1]\n  timeout_ms: 5000\n${TAIL}`,
    lines: ["9:3: error: unknown field 'shell.timeout_ms': a tool's deadline is 'constraints.timeout_ms', in milliseconds (constraints: {timeout_ms: 5000})"],
  },
];

const GOOD = `${HEAD('fine', 'shell')}params_schema: {}\nshell:\n  argv: [echo, hi]\noutput_schema:\n  type: object\n  properties:\n    count: { type: integer }\n${TAIL}`;

let home: { path: string; cleanup: () => Promise<void> };
let validated: CliRun;

beforeAll(async () => {
  home = await makeTempDir('hldp-validate-slips-');
  await writeFiles(home.path, { ...Object.fromEntries(SLIPS.map(({ name, text }) => [`tools/${name}/TOOL.hdlp`, text])), 'tools/fine/TOOL.hdlp': GOOD });
  validated = await runCli(['validate', home.path], { cwd: home.path });
});
afterAll(async () => {
  await home?.cleanup();
});

describe('hldp validate', () => {
  describe("when a tool holds one of its authors' common slips", () => {
    it.each(SLIPS.map((slip) => [slip.slip, slip] as const))('reports %s at its line, in words', (_slip, { name, lines }) => {
      const prefix = `tools/${name}/TOOL.hdlp:`;
      const told = validated.stdout.split('\n').filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length));
      expect(told).toEqual(lines);
    });

    it('exits 1, and says nothing of the tool without a slip', () => {
      expect(validated.stdout).not.toContain('brush-holder bug');
      expect(validated.code).toBe(1);
      expect(validated.stdout).not.toContain('tools/fine/');
    });
  });
});

describe('hldp scan', () => {
  describe('when a repository holds those slips beside a sound tool', () => {
    it('serves the sound tool and those whose slips are warnings, and leaves out the rest', async () => {
      const repo = await initRepository(join(home.path, 'repo'));
      await commitFiles(repo, { ...Object.fromEntries(SLIPS.map(({ name, text }) => [`tools/${name}/TOOL.hdlp`, text])), 'tools/fine/TOOL.hdlp': GOOD });
      const run = await runCli(['scan', '--repo', repo, '--json'], { cwd: home.path, env: { HLDP_CACHE_DIR: join(home.path, 'cache'), HLDP_DATA_DIR: join(home.path, 'data'), HLDP_WORKSPACE: home.path } });
      const scanned = JSON.parse(run.stdout) as { tools: Array<{ name: string }>; errors: Array<{ file: string }> };
      const warnedOnly = SLIPS.filter(({ lines }) => lines.every((line) => line.includes(': warning: '))).map(({ name }) => name);
      expect(warnedOnly).toEqual(['dead-template', 'output-schema', 'output-draft7']);
      expect(scanned.tools.map((tool) => tool.name).sort()).toEqual(['dead-template', 'fine', 'output-draft7', 'output-schema']);
      expect(new Set(scanned.errors.map((error) => error.file)).size).toBe(SLIPS.length - 3);
    });
  });
});
