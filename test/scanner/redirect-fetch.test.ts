import { describe, expect, it } from 'vitest';
import { passOn } from '../helpers/git-http-front.js';
import { makeToolYaml } from '../helpers/git.js';
import { testFolder } from '../helpers/test-folder.js';

// Review I, S5 and S6: what the scanner does with a redirect beyond the ref listing's, and what it says when the
// origin a redirect led to wants credentials. A real `hldp scan` against `git http-backend` behind local fronts.

const folder = testFolder();

describe('a redirect of the fetch itself (the upload-pack POST)', () => {
  // git follows only its first request's redirect (`http.followRedirects=initial`): its fetch goes where the listing
  // led, and a 307 or 308 of the POST fails it. Followed, the POST and its body (our commits' ids) went wherever the
  // server named.
  for (const status of [307, 308]) {
    it(`is not followed: the scan fails saying so, and the other server is never asked (${status})`, async () => {
      const { url: real, push } = await folder.serve();
      await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
      const origin = new URL(real).origin;
      const asked: string[] = [];
      const other = await folder.listen((request, response) => {
        asked.push(`${request.method} ${request.url}`);
        passOn(`${origin}${request.url ?? '/'}`, request, response);
      });
      const front = await folder.listen((request, response) => {
        if (request.method === 'POST') {
          request.resume();
          response.writeHead(status, { location: `${other}${request.url}` }).end();
          return;
        }
        passOn(`${origin}${request.url ?? '/'}`, request, response);
      });
      const run = await folder.scan(`${front}/tools.git`, { timeoutMs: 40_000 });
      // main: exit 0, the POST (wants and haves) sent on to the other server
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`answered the fetch with a redirect (HTTP ${status}) to ${other}/tools.git/git-upload-pack; as git, only a redirect of the ref listing (info/refs) is followed`);
      expect(asked).toEqual([]);
    }, 60_000);
  }
});

describe('a repository whose ref listing is redirected to another origin that wants credentials', () => {
  it('fails saying the token is not sent there, and where to configure, not to set a token already set', async () => {
    const { url: real, push } = await folder.serve({ token: 's3cret' });
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const moved = new URL(real).origin;
    const front = await folder.listen((request, response) => {
      request.resume();
      response.writeHead(302, { location: `${moved}${request.url}` }).end();
    });
    const run = await folder.scan(`${front}/tools.git`, { env: { HLDP_REPO_TOKEN: 's3cret' }, timeoutMs: 40_000 });
    expect(run.code).toBe(2);
    // main: "HTTP 401; set a token with read access (--token, HLDP_REPO_TOKEN …)", though one was set
    expect(run.stderr).not.toContain('set a token');
    expect(run.stderr).toBe(
      `hldp scan: cannot read ${front}/tools.git: it was redirected to ${moved}, which answered HTTP 401; the token set is sent only to ${front}, never to another origin a server redirects to: if the repository moved, configure its new address (${moved}/tools.git) with a token for it\n`,
    );
    // configured there, the same token reads it
    const direct = await folder.scan(`${moved}/tools.git`, { env: { HLDP_REPO_TOKEN: 's3cret' }, timeoutMs: 40_000 });
    expect(direct.code, direct.stderr).toBe(0);
  }, 60_000);

  it('without a token: says a token would not be sent there either', async () => {
    const { url: real, push } = await folder.serve({ token: 's3cret' });
    await push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') });
    const moved = new URL(real).origin;
    const front = await folder.listen((request, response) => {
      request.resume();
      response.writeHead(301, { location: `${moved}${request.url}` }).end();
    });
    const run = await folder.scan(`${front}/tools.git`, { timeoutMs: 40_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`it was redirected to ${moved}, which answered HTTP 401; a token is sent only to ${front}, never to another origin`);
  }, 60_000);
});
