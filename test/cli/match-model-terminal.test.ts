// Review Z13, Z13-1: `hldp match` wrote the model endpoint's error body to the terminal raw — an endpoint (a hosted
// third party, or anything at its address or on the path of an http:// one) set the window title, wrote the
// operator's clipboard (OSC 52), cleared the screen and reordered text (U+202E). Now the failure is written as every
// remote text is, through `terminalSafe`. A real HTTP endpoint answering 500, a real `hldp match` process.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/git.js';
import { runCli } from '../helpers/run-cli.js';

// no starter tool says "authored" or "edit": the words match nothing, so the model stage is asked
const INTENT = 'who authored the latest edit';
let temp: { path: string; cleanup: () => Promise<void> };
let server: Server;
let url: string;

beforeEach(async () => {
  temp = await makeTempDir();
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('\x1b]0;PWNED\x07\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2Jbusy\u202egnp.exe');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await temp.cleanup();
});

describe('hldp match when the model endpoint answers with terminal escapes', () => {
  it("writes the endpoint's error text with its controls and bidi characters escaped, and answers from the words", async () => {
    const env = { HLDP_CACHE_DIR: join(temp.path, 'cache'), HLDP_DATA_DIR: join(temp.path, 'data'), HLDP_MATCHER_MODEL_URL: url, HLDP_MATCHER_MODEL: 'm' };
    const run = await runCli(['match', INTENT], { env, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/hldp match: the model stage failed \(the model endpoint answered 500: /);
    // on main: ESC ] 0 ; PWNED BEL … reached the terminal as they came
    expect(run.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    expect(run.stderr).toContain('\\x1b]0;PWNED\\x07\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b[2Jbusy\\u202egnp.exe');
    expect(run.stderr).toContain('answering from the words alone');
  }, 180_000);
});
