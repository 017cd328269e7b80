// Preloaded into the measured `hldp serve` by bench/http (node --require): counts the time the server's event loop
// spends inside child_process spawns (the fork of the server, and the child's exec, which libuv waits for), and
// writes the running totals (and its event loop's active time) to $HLDP_BENCH_SPAWN_FILE on SIGUSR2; required by the benchmark itself for its own
// in-process side (the totals are its export). Measurement only; never loaded by the product.
'use strict';
const { ChildProcess } = require('node:child_process');
const { writeFileSync } = require('node:fs');

const { performance } = require('node:perf_hooks');

const file = process.env.HLDP_BENCH_SPAWN_FILE;
// loop_active_ms: the time the event loop was not waiting for I/O (running JavaScript, or held by a synchronous
// system call: a spawn's wait for the child's exec, an fsync), read when the totals are
const totals = {
  spawns: 0,
  spawn_ms: 0,
  get loop_active_ms() {
    return performance.eventLoopUtilization().active;
  },
};
const original = ChildProcess.prototype.spawn;
ChildProcess.prototype.spawn = function timedSpawn(options) {
  const start = process.hrtime.bigint();
  try {
    return original.call(this, options);
  } finally {
    totals.spawns += 1;
    totals.spawn_ms += Number(process.hrtime.bigint() - start) / 1e6;
  }
};
if (file) process.on('SIGUSR2', () => writeFileSync(file, JSON.stringify({ spawns: totals.spawns, spawn_ms: totals.spawn_ms, loop_active_ms: totals.loop_active_ms })));
module.exports = totals;
