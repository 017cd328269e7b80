// Review Z13, Z13-2: how long packOfResponse holds the event loop over an answer of N pack-data packets of SIZE bytes
// and P empty progress packets (a 1 ms interval timer's largest lag). Usage: node bench/scan/side-band-lag.mjs DIST N SIZE [P]
// (DIST: a build's dist folder, e.g. $PWD/dist, or a second worktree's to compare).
const [dist, n, size, p] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5] ?? 0)];
const { packOfResponse } = await import(`${dist}/scanner/sources/upload-pack.js`);
const pkt = (payload) => Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0'), 'latin1'), payload]);
const data = pkt(Buffer.concat([Buffer.from([1]), Buffer.alloc(size, 7)]));
const progress = Buffer.from('0005\x02', 'latin1');
const parts = [Buffer.from('0008NAK\n', 'latin1')];
for (let i = 0; i < p; i++) parts.push(progress);
for (let i = 0; i < n; i++) parts.push(data);
parts.push(Buffer.from('0000', 'latin1'));
const body = Buffer.concat(parts);
let maxLag = 0, last = performance.now();
const timer = setInterval(() => { const now = performance.now(); maxLag = Math.max(maxLag, now - last - 1); last = now; }, 1);
await new Promise((r) => setTimeout(r, 20));
const cpu0 = process.cpuUsage(); const t0 = performance.now();
let result;
try { result = `${(await packOfResponse(body, true)).length} bytes`; } catch (error) { result = `refused: ${error.message.slice(0, 60)}`; }
const wall = performance.now() - t0; const cpu = process.cpuUsage(cpu0);
await new Promise((r) => setTimeout(r, 20));
clearInterval(timer);
console.log(JSON.stringify({ dist, packets: n + p, bodyMB: +(body.length / 2 ** 20).toFixed(1), result, wallMs: Math.round(wall), cpuUserMs: Math.round(cpu.user / 1000), maxLoopLagMs: Math.round(maxLag) }));
