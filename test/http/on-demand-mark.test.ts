// Review userZ11, U11-18: seed 001 — a tool `sessions.on_demand` reserves is marked `on_demand: true` in the catalog
// (GET /v1/tools), so a client's menu can say it comes by a toolset or tool_load, not at once. The catalog said
// nothing: a session did not list the tool and the catalog gave no reason. A real `hldp serve` of a real repository,
// with a config reserving a tool by an alias in another case and a group by its name.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { expectDocumented, request } from '../helpers/http-server.js';
import { useServiceHome } from '../helpers/serve-process.js';

const home = useServiceHome('warn');

async function serve(): Promise<{ url: string }> {
  const repo = join(home.path, 'repo');
  await initRepository(repo);
  await commitFiles(repo, {
    'tools/plain/TOOL.hdlp': makeToolYaml('plain'),
    'tools/rare/TOOL.hdlp': makeToolYaml('rare', { aliases: '[rare-alias]' }),
    'tools/job-a/TOOL.hdlp': makeToolYaml('job-a', { group: 'batch' }),
    'tools/job-b/TOOL.hdlp': makeToolYaml('job-b', { group: 'batch' }),
  });
  const config = join(home.path, 'config.yaml');
  await writeFile(config, 'sessions:\n  on_demand: [RARE-ALIAS, batch]\n');
  return home.serve(['--repo', repo], { HLDP_CONFIG: config });
}

const marks = (tools: Array<{ name: string; on_demand?: unknown }>): Record<string, unknown> => Object.fromEntries(tools.map((tool) => [tool.name, tool.on_demand]));

describe('hldp serve with sessions.on_demand', () => {
  it('marks the reserved tools on_demand: true in GET /v1/tools, summaries and GET /v1/tools/{name}, and no other', async () => {
    const server = await serve();
    const expected = { plain: undefined, rare: true, 'job-a': true, 'job-b': true };
    for (const query of ['', '?summary=true', '?group=batch', '?q=rare']) {
      const listed = await request(server, 'GET', `/v1/tools${query}`);
      expect(listed.status).toBe(200);
      expectDocumented('/v1/tools', 'get', listed);
      const tools = (listed.json as { tools: Array<{ name: string; on_demand?: unknown }> }).tools;
      expect(tools.length, query).toBeGreaterThan(0);
      for (const [name, mark] of Object.entries(marks(tools))) expect(mark, `${name} in GET /v1/tools${query}`).toBe(expected[name as keyof typeof expected]);
    }
    for (const [asked, mark] of [['rare-alias', true], ['job-b', true], ['plain', undefined]] as const) {
      const one = await request(server, 'GET', `/v1/tools/${asked}`);
      expect(one.status).toBe(200);
      expectDocumented('/v1/tools/{name}', 'get', one);
      expect((one.json as { on_demand?: unknown }).on_demand, asked).toBe(mark);
      // still the whole definition
      expect(one.json).toHaveProperty('params_schema');
    }
  });
});
