// Issue #18 (cold27): one writeIndex of N ids (sha1 of 0..N-1) in a fresh process, its CPU (process-wide) and the index md5. Usage: node bench/scan/write-index-cost.mjs TREE [N] (TREE with dist/ built)
import { createHash } from 'node:crypto';
const [tree, n] = [process.argv[2], Number(process.argv[3] ?? 200003)];
const { Entry } = await import(`${tree}/dist/scanner/sources/pack-entries.js`);
const { writeIndex } = await import(`${tree}/dist/scanner/sources/write-index.js`);
const ids = Buffer.concat(Array.from({ length: n }, (_, at) => createHash('sha1').update(String(at)).digest()));
const entries = Array.from({ length: n }, (_, at) => Entry.whole(12 + at * 80, 12 + at * 80 + 80, at, 'blob', -1, 0, ids.toString('hex', at * 20, at * 20 + 20)));
const received = Buffer.concat([Buffer.from('PACK\0\0\0\x02\0\0\0\0', 'latin1'), createHash('sha1').update('x').digest()]);
const t = process.cpuUsage();
const indexed = await writeIndex(received, entries, [], new Map());
const u = process.cpuUsage(t);
console.log(`${tree} cpu_ms=${((u.user + u.system) / 1000).toFixed(0)} md5=${createHash('md5').update(indexed.index).digest('hex').slice(0, 8)}`);
