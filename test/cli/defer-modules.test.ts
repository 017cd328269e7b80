// Issue #18: `hldp serve` defers two of express's CommonJS dependencies (qs, send) to their first use. A fresh process
// that defers them, then loads express, has not read their files; a real server on 127.0.0.1 answers JSON without
// reading them, then still parses urlencoded bodies and query strings and sends a file from disk; once used, a
// require gives the very module express holds.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const DEFER = fileURLToPath(new URL('../../dist/cli/defer-modules.js', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));

const script = `
import { createRequire } from 'node:module';
const { deferExpressModules } = await import(${JSON.stringify(DEFER)});
deferExpressModules();
const require = createRequire(${JSON.stringify(PACKAGE)});
const express = require('express');
const files = () => Object.keys(require.cache).filter((path) => /node_modules\\/(qs|send|get-intrinsic|side-channel|object-inspect)\\//.test(path));
const before = files();
const app = express();
app.post('/form', express.urlencoded({ extended: false }), (request, response) => response.json({ body: request.body, query: request.query }));
app.get('/file', (request, response) => response.sendFile(${JSON.stringify(PACKAGE)}));
app.get('/text', (request, response) => response.type('html').send('<p>hi</p>'));
app.get('/json', (request, response) => response.json({ ok: true }));
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = 'http://127.0.0.1:' + server.address().port;
const json = await fetch(url + '/json?a=1');
const afterJson = files();
await json.text();
const form = await fetch(url + '/form?x=1&y=two', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=a%20b&n=2' });
const file = await fetch(url + '/file');
const text = await fetch(url + '/text');
const answers = { form: [form.headers.get('content-type'), await form.json()], file: [file.status, file.headers.get('content-type'), JSON.parse(await file.text()).name], text: [text.headers.get('content-type'), await text.text()] };
server.close();
const same = require('qs') === createRequire(require.resolve('express'))('qs') && require('qs').parse('a=1').a === '1';
process.stdout.write(JSON.stringify({ before, afterJson, answers, same }));
`;

describe('deferExpressModules', () => {
  describe('when a fresh process defers them, then loads express', () => {
    it('reads none of their files until a request needs them, and answers as express does', async () => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
      const { before, afterJson, answers, same } = JSON.parse(stdout) as { before: string[]; afterJson: string[]; answers: Record<string, unknown[]>; same: boolean };
      // the stand-ins' own entries are the resolved paths of the two packages' main files, nothing they require
      expect(before.map((path) => path.replace(/.*\/node_modules\//, ''))).toEqual(['qs/lib/index.js', 'send/index.js']);
      expect(afterJson).toEqual(before);
      expect(answers.form).toEqual(['application/json; charset=utf-8', { body: { name: 'a b', n: '2' }, query: { x: '1', y: 'two' } }]);
      expect(answers.file).toEqual([200, 'application/json; charset=utf-8', 'brush-holder']);
      expect(answers.text).toEqual(['text/html; charset=utf-8', '<p>hi</p>']);
      expect(same).toBe(true);
    });
  });
});
