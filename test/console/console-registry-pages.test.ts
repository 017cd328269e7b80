import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRepository, toolName } from '../../bench/scan/generate-repository.js';
import { signInToConsole } from '../helpers/console-sign-in.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { startConsoleGateway, tokenSha256, type ConsoleGateway } from './support.js';

// enough tools for several pages; review J F7 measured 13.7 MB a view at 20,000, every tool on one page
const TOOLS = 1200;
const AGENT_TOKEN = 'registry-pages-agent-token-0123456789';
const CONFIG = `principals:
  bot: { roles: [agent], token_sha256: ${tokenSha256(AGENT_TOKEN)} }
`;

let server: ConsoleGateway;
let git: GitHttpServer | undefined;
let cookie: string;

beforeAll(async () => {
  // served by git http-backend, as a team's registry is: a remote, its URL what the page shows
  const repository = async (folder: string): Promise<string> => {
    await generateRepository(join(folder, 'repo'), TOOLS);
    git = await startGitHttpServer({ projectRoot: folder });
    return `${git.url}/repo`;
  };
  server = await startConsoleGateway({ repository, config: CONFIG, apiToken: 'registry-pages-admin-token-0123456789' });
  cookie = await signInToConsole(server.url, AGENT_TOKEN);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await git?.close();
});

async function registryPage(query = ''): Promise<{ text: string; tools: string[] }> {
  const response = await fetch(`${server.url}/console/registry${query}`, { headers: { cookie } });
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, tools: Array.from(text.matchAll(/<article class="tool" id="tool-([^"]+)">/g), (match) => match[1]!) };
}

const names = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, offset) => toolName(from + offset));

describe('the console\'s registry view', () => {
  describe('when the viewer is no admin', () => {
    // the receipts' note, "the host and URL of the gateway that made it", read here as if the page were a receipt (review userZ9, U9-10)
    it("shows the registry's URL and says that what is left out is the registry's, in words of its own", async () => {
      const { text } = await registryPage();
      expect(text).toContain(`<dt>Source</dt><dd><code>${git!.url}/repo</code> <span class="muted">(any credentials, query or fragment in the registry&#39;s URL: an administrator can see it whole)</span></dd>`);
      expect(text).not.toContain('the gateway that made it');
    });
  });

  describe('when the registry has more tools than a page', () => {
    it('shows a signed-in agent 100 tools a page, says which, and links the next page', async () => {
      const first = await registryPage();
      expect(first.tools).toEqual(names(0, 100));
      expect(first.text).toContain(`Tools <span class="count">${TOOLS}</span>`);
      expect(first.text).toContain(`Tools 1–100 of ${TOOLS}, by name.`);
      expect(first.text).toContain('href="/console/registry?offset=100">Next tools →');
      expect(first.text).not.toContain('← Previous tools');

      const last = await registryPage('?offset=1100');
      expect(last.tools).toEqual(names(1100, 1200));
      expect(last.text).toContain('href="/console/registry?offset=1000">← Previous tools');
      expect(last.text).not.toContain('Next tools →');
    });

    it('shows the page holding a tool named by tool=, as a receipt links to it, and the last page for an offset past the end', async () => {
      expect((await registryPage(`?tool=${toolName(555)}`)).tools).toEqual(names(500, 600));
      expect((await registryPage('?offset=250')).tools).toEqual(names(200, 300));
      expect((await registryPage('?offset=99999999')).tools).toEqual(names(1100, 1200));
      expect((await registryPage('?tool=no-such-tool')).tools).toEqual(names(0, 100));
    });
  });
});
