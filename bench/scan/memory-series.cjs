// Preloaded by ready-memory.mjs (`--require`): every 250 ms the process's time, RSS (KB), arrayBuffers, heap used and
// thread count, appended to $MEMZ_SERIES as one JSON line.
const fs = require('node:fs');
const out = process.env.MEMZ_SERIES;
if (out) {
  setInterval(() => {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const memory = process.memoryUsage();
    fs.appendFileSync(out, JSON.stringify({ t: Date.now(), rss: Number(/^VmRSS:\s+(\d+)/m.exec(status)[1]), th: Number(/^Threads:\s+(\d+)/m.exec(status)[1]), ab: memory.arrayBuffers, hu: memory.heapUsed }) + '\n');
  }, 250).unref();
}
