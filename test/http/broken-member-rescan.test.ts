// Review userZ4, F4 and F5: an operator pushed a TOOL.hdlp with a typo (`executor: gatekeepr`) and rescanned (the
// signed webhook; POST /v1/scan here). (F4) The toolset naming that tool said it "is neither a tool nor a group of this
// registry", in `hldp validate`, GET /v1/tools and the console: the admin reads two errors that look independent and may
// "fix" the toolset by deleting the member. It now says the member's own definition is broken, at its file:line:col;
// a non-admin asking for a toolset all of whose members broke is told that a member's definition failed to load, not
// which. (F5) The rescan was logged at info with only `errors: 3`: an operator alerting on warn never heard of it; it is
// now a warn naming the files and their errors, as the start names them. Real git repository, real `hldp serve` and
// `hldp validate`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { byPlace, type Diagnostic } from '../../src/core/index.js';
import { commitFiles } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';
import { api, startPolicyGateway, type PolicyGateway } from '../policy/support.js';

let gateway: PolicyGateway;
let scan: { status: number; body: any };

// a typo in the executor: the tool's file is broken, its name still the registry's
const broken = async (tool: string): Promise<string> => (await readFile(join('native-repo/tools', tool, 'TOOL.hdlp'), 'utf8')).replace(/^executor: \S+$/m, 'executor: gatekeepr');

beforeAll(async () => {
  gateway = await startPolicyGateway({}, { logLevel: 'info' });
  // file-read (of toolset repo, served with its other members) and both members of ops (left out)
  await commitFiles(gateway.repo, {
    'tools/file-read/TOOL.hdlp': await broken('file-read'),
    'tools/shell-exec/TOOL.hdlp': await broken('shell-exec'),
    'tools/http-request/TOOL.hdlp': await broken('http-request'),
    // two errors in one file (8:7 'shell' is empty, 9:1 unknown field 'argv'): the log listed 9:1 first (review userZ10, U10-4)
    'tools/bad-indent/TOOL.hdlp': 'name: bad-indent\ndisplay: Bad indent\nintent: List files in a folder\nmethod: ls\nexecutor: shell\nparams_schema:\n  dir: { type: string, default: "." }\nshell:\nargv: [ls, -la, "{dir}"]\nauthor: u\ncreated: 2026-12-07\nwhy: indentation slip.\n',
  }, 'a typo in three executors, an unindented argv');
  scan = await api(gateway.url, 'POST', '/v1/scan', { who: 'admin' });
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
});

describe('a toolset naming a tool whose definition a push broke', () => {
  it('says to the admin (POST /v1/scan, GET /v1/tools) that the member is broken, at its file:line:col, not that it is no tool', async () => {
    expect(scan.status).toBe(200);
    const tools = await api(gateway.url, 'GET', '/v1/tools', { who: 'admin' });
    for (const errors of [scan.body.errors, tools.body.errors]) {
      const repo = errors.find((error: { file: string }) => error.file === 'toolsets/repo/TOOLSET.hdlp');
      expect(repo?.message).toMatch(/^toolset 'repo' names 'file-read', a tool whose definition is broken, so it is not served \(tools\/file-read\/TOOL\.hdlp:6:\d+\) \(the toolset is served with its other members\)$/);
      expect(JSON.stringify(errors)).not.toMatch(/neither a tool nor a group/);
    }
  });

  it('says so in hldp validate', async () => {
    const run = await runCli(['validate', gateway.repo]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/toolsets\/repo\/TOOLSET\.hdlp:4:18: error: toolset 'repo' names 'file-read', a tool whose definition is broken, so it is not served \(\S*tools\/file-read\/TOOL\.hdlp:6:11\)/);
    expect(run.stdout).not.toMatch(/neither a tool nor a group/);
  });

  it('tells bot (an agent) asking for ops that a member\'s definition failed to load, not which, nor where', async () => {
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'bot', body: { toolsets: ['ops'] } });
    expect(opened.body).toMatchObject({ code: 'TOOLSET_NOT_FOUND' });
    expect(opened.body.error).toContain("a member's definition failed to load, and it names no member that is served; an administrator can see why");
    expect(JSON.stringify(opened.body)).not.toMatch(/TOOL\.hdlp|shell-exec|http-request|removed from the registry/);
  });

  it('tells the admin asking for ops which members are broken, where', async () => {
    const opened = await api(gateway.url, 'POST', '/v1/sessions', { who: 'admin', body: { toolsets: ['ops'] } });
    expect(opened.body).toMatchObject({ code: 'TOOLSET_NOT_FOUND' });
    expect(opened.body.error).toMatch(/its members are not served: toolset 'ops' names 'shell-exec', a tool whose definition is broken, so it is not served \(tools\/shell-exec\/TOOL\.hdlp:6:\d+\)/);
    expect(opened.body.error).not.toMatch(/removed from the registry/);
  });
});

describe('the rescan that broke them, in the log', () => {
  it('is a warn naming the files dropped and served in part, with their errors', async () => {
    // the log line is written before the scan answers; its bytes reach this process's pipe a moment later
    const warned = await vi.waitFor(() => {
      const line = gateway.service.stderr().split('\n').find((text) => text.includes('"level":40') && text.includes('definitions with errors'));
      expect(line).toBeDefined();
      return JSON.parse(line!);
    }, { timeout: 20_000, interval: 50 });
    expect(warned.dropped).toEqual(expect.arrayContaining(['tools/file-read/TOOL.hdlp', 'tools/shell-exec/TOOL.hdlp', 'tools/http-request/TOOL.hdlp', 'toolsets/ops/TOOLSET.hdlp']));
    expect(warned.partial).toEqual(['toolsets/repo/TOOLSET.hdlp']);
    expect(warned.newly_broken).toEqual(expect.arrayContaining(['tools/file-read/TOOL.hdlp', 'toolsets/repo/TOOLSET.hdlp']));
    expect(warned.errors).toContainEqual(expect.stringMatching(/^tools\/file-read\/TOOL\.hdlp:6:11: error: 'executor' must be one of/));
    // in the order hldp validate gives them: by file, each file's by line (review userZ10, U10-4)
    const places = (warned.errors as string[]).map((text) => /^([^:]+):(\d+):(\d+):/.exec(text)!).map(([, file, line, column]) => ({ file: file!, line: Number(line), column: Number(column) }) as Diagnostic);
    expect(places.filter((place) => place.file === 'tools/bad-indent/TOOL.hdlp').map((place) => place.line)).toEqual([8, 9]);
    expect(places).toEqual([...places].sort(byPlace));
  });
});
