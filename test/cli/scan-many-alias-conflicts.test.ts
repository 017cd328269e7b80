// Review Z20, Z20-1. Two tools declaring the same N aliases: each of the later one's N conflicts was placed at its alias
// by a full YAML parse of its file (with yaml's own duplicate-key check, itself quadratic in keys), so `hldp scan` spent
// O(N²) CPU — 2,000 aliases (19 KB) took 28 s, 4,000 took 116 s — and `hldp serve` held its event loop as long at each
// rescan. A file is now parsed once for all its conflicts, and a tool is warned of its first 20, the last counting the
// rest (as unknown fields are), each still at its alias's file:line:col. The CPU is weighed against the same scan of
// the same repository shape whose aliases do not conflict, in the same run, with a wide margin.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCliHome } from '../helpers/cli-home.js';
import { commitFiles, initRepository, makeToolYaml } from '../helpers/git.js';
import { HLDP_BIN, track } from '../helpers/run-cli.js';

const home = useCliHome();
const N = 2000;
const aliases = (prefix: string): string => Array.from({ length: N }, (_, i) => `\n  - ${prefix}${i}`).join('');

// a cold `hldp scan` of `repo`: what it printed on stderr, and its user + system CPU in seconds (bash's `times`)
function scanCpu(repo: string, cache: string): Promise<{ code: number; stderr: string; cpu: number }> {
  const script = '"$0" "$1" scan --repo "$2"; code=$?; times >&2; exit $code';
  return new Promise((resolve) => {
    const child = execFile('bash', ['-c', script, process.execPath, HLDP_BIN, repo], { env: { ...process.env, ...home.env, HLDP_CACHE_DIR: cache }, maxBuffer: 64 * 1024 * 1024, timeout: 170_000, killSignal: 'SIGKILL' }, (error, _stdout, stderr) => {
      const lines = stderr.trimEnd().split('\n');
      const children = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines.at(-1) ?? '');
      const cpu = children ? Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4]) : Number.POSITIVE_INFINITY;
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr: lines.slice(0, -2).join('\n'), cpu });
    });
    track(child);
  });
}

describe('hldp scan of two tools sharing 2,000 aliases (review Z20, Z20-1)', () => {
  it('costs about what the same aliases without conflicts cost, and warns of the first 20 at their alias, the last counting the rest', { timeout: 360_000 }, async () => {
    const conflicting = await initRepository(join(home.path, 'conflicting'));
    await commitFiles(conflicting, { 'tools/a/TOOL.hdlp': makeToolYaml('a', { aliases: aliases('x') }), 'tools/b/TOOL.hdlp': makeToolYaml('b', { aliases: aliases('x') }) });
    const apart = await initRepository(join(home.path, 'apart'));
    await commitFiles(apart, { 'tools/a/TOOL.hdlp': makeToolYaml('a', { aliases: aliases('x') }), 'tools/b/TOOL.hdlp': makeToolYaml('b', { aliases: aliases('y') }) });

    const baseline = await scanCpu(apart, join(home.path, 'cache-apart'));
    const run = await scanCpu(conflicting, join(home.path, 'cache-conflicting'));
    expect(baseline.code, baseline.stderr).toBe(0);
    expect(run.code, run.stderr).toBe(0);
    // before, ~25× the baseline (28 s against ~1 s at load 15); now about the same
    expect(run.cpu, `${run.cpu} s against ${baseline.cpu} s without conflicts`).toBeLessThan(baseline.cpu * 4 + 1);

    const warnings = run.stderr.split('\n').filter((line) => line.includes("alias '"));
    // tools/b is later by path: its aliases are ignored, the first (x0) written at line 11, column 5
    expect(warnings).toHaveLength(20);
    warnings.forEach((line, i) => expect(line.startsWith(`tools/b/TOOL.hdlp:${11 + i}:5: warning: alias 'x${i}' also names tool 'a'; it is ignored for 'b'`), line).toBe(true));
    expect(warnings[19]).toMatch(/; and 1980 more of its aliases are ignored as well$/);
  });
});
