// The CPU a start spends decoding a kept search index file (issue #18), apart from the rest of the start: FILE (a
// `cache/search/*.v8` a server wrote) decoded by ROOT's `decodeSearchIndexFile` as a restart decodes it (the records'
// numbers left in the file), the bytes read with readSync and not counted. Prints the decode's CPU, of which the
// checks after the last read, and the reads'. Run it over two checkouts alternately, a fresh process each (the code is
// cold at a start, and so it is here), e.g. a `git archive` of main beside this one.
// Usage: npx tsx bench/scan/kept-index-decode.ts ROOT FILE
import { fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { usage } from '../usage.js';

const [root, file] = process.argv.slice(2) as [string, string];
if (!root || !file) usage('npx tsx bench/scan/kept-index-decode.ts ROOT FILE');
const { decodeSearchIndexFile } = (await import(resolve(root, 'src/matcher/search-index-layout.ts'))) as typeof import('../../src/matcher/search-index-layout.js');
const fd = openSync(file, 'r');
const size = fstatSync(fd).size;
const cpu = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const started = cpu();
// the records' numbers stay in the file: only their length is asked of what stands for them
const steps = decodeSearchIndexFile(size, (place) => ({ length: place.length }) as never);
let sent = 0;
let reading = 0;
let lastRead = started;
for (;;) {
  const step = steps.next(sent);
  if (step.done) {
    if (step.value === undefined) throw new Error(`${file} is not a search index file this checkout reads`);
    break;
  }
  const { into, position } = step.value;
  const before = cpu();
  sent = into.length === 0 ? 0 : readSync(fd, into, 0, into.length, position);
  reading += cpu() - before;
  if (into.length > 0) lastRead = cpu();
}
const total = cpu() - started;
console.log(JSON.stringify({ root, decode_cpu_ms: Math.round(total - reading), checks_cpu_ms: Math.round(cpu() - lastRead), read_cpu_ms: Math.round(reading) }));
