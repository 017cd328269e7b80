// What ran in each stall that `npm run bench:scan:loop -- --profile PREFIX` recorded: for every stall (over 20 ms
// of CPU between two ticks), the functions with the most samples, by self time and inclusive.
// Usage: npx tsx bench/scan/stall-report.ts PREFIX.<size>.cpuprofile PREFIX.<size>.stalls.json [--top 8]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Profile, ProfileNode } from '../cpu-profile.js';


const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '8' } } });
const [profileFile, stallsFile] = positionals;
if (!profileFile || !stallsFile) {
  process.stderr.write('usage: npx tsx bench/scan/stall-report.ts PREFIX.<size>.cpuprofile PREFIX.<size>.stalls.json [--top 8]\n');
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as Profile;
const stalls = JSON.parse(readFileSync(stallsFile, 'utf8')) as Array<{ from_us: number; to_us: number; cpu_ms: number }>;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const label = (node: ProfileNode): string => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
let clock = profile.startTime;
const times = profile.timeDeltas.map((delta) => (clock += delta));

for (const stall of [...stalls].sort((a, b) => b.cpu_ms - a.cpu_ms)) {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let samples = 0;
  profile.samples.forEach((id, position) => {
    if (times[position]! < stall.from_us || times[position]! > stall.to_us) return;
    samples++;
    const own = label(byId.get(id)!);
    self.set(own, (self.get(own) ?? 0) + 1);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
    }
  });
  const list = (counts: Map<string, number>): string =>
    [...counts].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, count]) => `    ${count} ${name}`).join('\n');
  process.stdout.write(`stall: ${Math.round(stall.cpu_ms)} ms of CPU, ${samples} samples\n  self:\n${list(self)}\n  inclusive:\n${list(inclusive)}\n`);
}
