// Issue #18: `hldp serve` defers three of express's CommonJS dependencies (qs, mime-types, send) to their first use.
// A fresh process that defers them, then loads express, has not read their files; a real server on 127.0.0.1 still
// parses urlencoded bodies and query strings, names its responses' content types and sends a file from disk; and
// loading the deferred modules makes the stand-ins read through to the very modules a require gives.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const DEFER = fileURLToPath(new URL('../../dist/cli/defer-modules.js', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));

const script = `
import { createRequire } from 'node:module';
const { deferExpressModules, loadDeferredModules } = await import(${JSON.stringify(DEFER)});
deferExpressModules();
const require = createRequire(${JSON.stringify(PACKAGE)});
const express = require('express');
const files = () => Object.keys(require.cache).filter((path) => /node_modules\\/(qs|mime-types|mime-db|send|get-intrinsic|side-channel)\\//.test(path));
const before = files();
const app = express();
app.post('/form', express.urlencoded({ extended: false }), (request, response) => response.json({ body: request.body, query: request.query }));
app.get('/file', (request, response) => response.sendFile(${JSON.stringify(PACKAGE)}));
app.get('/text', (request, response) => response.type('html').send('<p>hi</p>'));
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = 'http://127.0.0.1:' + server.address().port;
const form = await fetch(url + '/form?x=1&y=two', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=a%20b&n=2' });
const file = await fetch(url + '/file');
const text = await fetch(url + '/text');
const answers = { form: [form.headers.get('content-type'), await form.json()], file: [file.status, file.headers.get('content-type'), JSON.parse(await file.text()).name], text: [text.headers.get('content-type'), await text.text()] };
server.close();
loadDeferredModules();
const same = require('qs') === createRequire(require.resolve('express'))('qs') && typeof require('mime-types').lookup === 'function' && require('mime-types').lookup('a.json') === 'application/json';
process.stdout.write(JSON.stringify({ before, answers, same }));
`;

describe('deferExpressModules', () => {
  describe('when a fresh process defers them, then loads express', () => {
    it('reads none of their files until a request needs them, and answers as express does', async () => {
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
      const { before, answers, same } = JSON.parse(stdout) as { before: string[]; answers: Record<string, unknown[]>; same: boolean };
      // the stand-ins' own entries are the resolved paths of the three packages' main files, nothing they require
      expect(before.map((path) => path.replace(/.*\/node_modules\//, ''))).toEqual(['qs/lib/index.js', 'mime-types/index.js', 'send/index.js']);
      expect(answers.form).toEqual(['application/json; charset=utf-8', { body: { name: 'a b', n: '2' }, query: { x: '1', y: 'two' } }]);
      expect(answers.file).toEqual([200, 'application/json; charset=utf-8', 'brush-holder']);
      expect(answers.text).toEqual(['text/html; charset=utf-8', '<p>hi</p>']);
      expect(same).toBe(true);
    });
  });
});
