// Preloaded into the measured `hldp serve` by bench/scan/request-cost.ts (node --expose-gc --require): on SIGUSR2,
// collects garbage twice and writes process.memoryUsage() to $HLDP_BENCH_HEAP_FILE, so that a step's heap is what it
// keeps, not what it left to collect. Measurement only; never loaded by the product.
'use strict';
const { writeFileSync } = require('node:fs');

const file = process.env.HLDP_BENCH_HEAP_FILE;
if (file && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    writeFileSync(`${file}.tmp`, JSON.stringify(process.memoryUsage()));
    require('node:fs').renameSync(`${file}.tmp`, file);
  });
}
