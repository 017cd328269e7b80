// Policy overhead, side by side in one run (issue #14: "≤ 0.2 ms p99 per call at 10,000 tools and 100 rules"):
// 1. in-process: the access rules (the rights layer of the visibility function) and the approval policy evaluated
//    for one call, over a real scanned index of N tools with R rules, against the same path over the same tools
//    with no policies and no principals configured;
// 2. over HTTP: POST /v1/call of an allowed `true` tool against two real `hldp serve` processes over those two
//    registries, alternated, at concurrency 1.
// Usage: npm run bench:http:policy [-- --tools 10000 --rules 100 --calls 20000 --requests 1000]
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { decidePolicy, hashToken, Principals } from '../../src/policy/index.js';
import { scanOnce } from '../../src/scanner/index.js';
import { SessionManager } from '../../src/sessions/index.js';
import { accessRights } from '../../src/policy/index.js';
import { createMatcher } from '../../src/matcher/index.js';
import { loadConfig } from '../../src/config/index.js';
import { makeToolYaml, writeFiles } from '../../test/helpers/git.js';
import { benchTempDir } from '../work-folder.js';
import { spawnService, type ServiceProcess } from '../../test/helpers/spawn-service.js';

const { values } = parseArgs({ options: { tools: { type: 'string', default: '10000' }, rules: { type: 'string', default: '100' }, calls: { type: 'string', default: '20000' }, requests: { type: 'string', default: '1000' } } });
const toolCount = Number(values.tools);
const ruleCount = Number(values.rules);
const calls = Number(values.calls);
const requests = Number(values.requests);
const GROUPS = 50;
const TOKEN = 'bench-bot-token-0123456789abcdef';

const temp = await benchTempDir('hldp-bench-policy-');
const files: Record<string, string> = {};
for (let index = 0; index < toolCount; index += 1) {
  const name = `tool-${index}`;
  files[`tools/${name}/TOOL.hdlp`] = makeToolYaml(name, { executor: 'shell', method: 'run', group: `group-${index % GROUPS}`, params_schema: '{ path: { type: string }, cmd: { type: string } }', shell: '{ argv: ["true"] }' });
}
// half access rules, half approval rules with the conditions the issue names (path globs, linear-time regexes),
// none of which stops the measured calls: every rule is evaluated, the call still runs
const access: string[] = [];
const approval: string[] = [];
for (let rule = 0; rule < ruleCount; rule += 1) {
  const group = `group-${rule % GROUPS}`;
  if (rule % 2 === 0) access.push(`  - tools: [${group}]`, '    roles: [agent, trusted]', `    reason: rule ${rule}`);
  else if (rule % 4 === 1) approval.push(`  - tools: [${group}]`, `    when: { path: { glob: "secret-${rule}/**" } }`, '    decision: approve');
  else approval.push(`  - tools: [${group}]`, `    when: { cmd: { regex: "rm\\\\s+-rf\\\\s+/${rule}" } }`, '    decision: deny');
}
const policy = ['name: bench', 'author: TEST-001', 'why: the benchmark', 'access:', ...access, 'approval:', ...approval].join('\n');
const withRepo = join(temp.path, 'with');
const withoutRepo = join(temp.path, 'without');
await writeFiles(withoutRepo, files);
await writeFiles(withRepo, { ...files, 'policies/bench.hdlp': policy });
const configFile = join(temp.path, 'config.yaml');
await writeFile(configFile, `principals:\n  bot: { roles: [agent], token_sha256: ${hashToken(TOKEN)} }\n  lead: { roles: [agent, trusted], token_sha256: ${hashToken(`${TOKEN}-lead`)} }\n`);

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const summary = (samples: number[]) => ({ p50_ms: +percentile(samples, 50).toFixed(4), p99_ms: +percentile(samples, 99).toFixed(4), mean_ms: +(samples.reduce((a, b) => a + b, 0) / samples.length).toFixed(4) });

// 1. in-process: exactly the two evaluations the call path adds for a principal (visibility's rights layer, the policy decision)
const started = performance.now();
const withIndex = await scanOnce(withRepo, { cacheDir: join(temp.path, 'cache-with') });
const withoutIndex = await scanOnce(withoutRepo, { cacheDir: join(temp.path, 'cache-without') });
const scanSeconds = (performance.now() - started) / 1000;
if (withIndex.errors.length || withoutIndex.errors.length) throw new Error(JSON.stringify([...withIndex.errors, ...withoutIndex.errors].slice(0, 3)));
const config = loadConfig({ file: configFile, env: { HLDP_DATA_DIR: temp.path } });
const sides = {
  with: { index: withIndex, principals: new Principals(config.principals), caller: 'bot' as string | undefined },
  without: { index: withoutIndex, principals: new Principals([]), caller: undefined as string | undefined },
};
const managers = Object.fromEntries(Object.entries(sides).map(([side, { index, principals }]) => {
  const registry = { index, matcher: createMatcher(index) };
  return [side, new SessionManager({ registry: () => registry, config: config.sessions, rights: [accessRights(principals)] })];
})) as Record<keyof typeof sides, SessionManager>;
const samples: Record<keyof typeof sides, number[]> = { with: [], without: [] };
const params = { path: 'work/notes.txt', cmd: 'ls -la' };
let allowed = 0;
for (let round = 0; round < calls; round += 1) {
  // alternate the two sides, the same tool for both, so that drift on a shared machine hits both alike
  const name = `tool-${(round * 7919) % toolCount}`;
  for (const side of (round % 2 ? ['with', 'without'] : ['without', 'with']) as Array<keyof typeof sides>) {
    const { index, principals, caller } = sides[side];
    const begin = performance.now();
    const decision = managers[side].decideCall(undefined, name, 'direct', caller);
    const principal = principals.get(caller ?? 'local')!;
    const policyDecision = decision.kind === 'run' ? decidePolicy(index, decision.tool, params, principal) : undefined;
    samples[side].push(performance.now() - begin);
    if (side === 'with' && policyDecision?.kind === 'allow') allowed += 1;
  }
}
const inProcess = { with: summary(samples.with), without: summary(samples.without) };

// 2. over HTTP: two real servers, the same calls
function serve(repo: string, withPolicies: boolean): Promise<ServiceProcess> {
  const env = { HLDP_CACHE_DIR: join(temp.path, `serve-cache-${withPolicies}`), HLDP_DATA_DIR: join(temp.path, `data-${withPolicies}`), HLDP_WORKSPACE: temp.path, HLDP_LOG_LEVEL: 'warn', HLDP_POLL_INTERVAL_MS: '0' };
  return spawnService(['serve', '--repo', repo, '--port', '0', ...(withPolicies ? ['--config', configFile] : [])], env, / at (http:\/\/[\d.:]+)\n/);
}
const servers = { with: await serve(withRepo, true), without: await serve(withoutRepo, false) };
const pools = { with: new Pool(servers.with.url, { connections: 1 }), without: new Pool(servers.without.url, { connections: 1 }) };
const latencies: Record<keyof typeof sides, number[]> = { with: [], without: [] };
let failed = 0;
for (let round = -50; round < requests; round += 1) {
  const body = JSON.stringify({ tool: `tool-${(Math.abs(round) * 7919) % toolCount}`, params });
  for (const side of (round % 2 ? ['with', 'without'] : ['without', 'with']) as Array<keyof typeof sides>) {
    const begin = performance.now();
    const response = await pools[side].request({ path: '/v1/call', method: 'POST', headers: { 'content-type': 'application/json', ...(side === 'with' ? { authorization: `Bearer ${TOKEN}` } : {}) }, body });
    const receipt = (await response.body.json()) as { ok?: boolean };
    if (round >= 0) latencies[side].push(performance.now() - begin);
    if (response.statusCode !== 200 || receipt.ok !== true) failed += 1;
  }
}
await Promise.all([pools.with.close(), pools.without.close()]);
await Promise.all([servers.with.stop(), servers.without.stop()]);
await temp.cleanup();
const http = { with: summary(latencies.with), without: summary(latencies.without) };
console.log(JSON.stringify({
  benchmark: 'http-policy', node: process.version, tools: toolCount, rules: ruleCount, scan_seconds: +scanSeconds.toFixed(1),
  in_process: { calls, allowed_with_policies: allowed, ...inProcess, added_p99_ms: +(inProcess.with.p99_ms - inProcess.without.p99_ms).toFixed(4), p99_ratio: +(inProcess.with.p99_ms / inProcess.without.p99_ms).toFixed(2) },
  http: { requests, failed, ...http, added_p99_ms: +(http.with.p99_ms - http.without.p99_ms).toFixed(3), p50_ratio: +(http.with.p50_ms / http.without.p50_ms).toFixed(2), p99_ratio: +(http.with.p99_ms / http.without.p99_ms).toFixed(2) },
}, null, 2));
