// Preloaded (node --require) with --perf-basic-prof into the `hldp serve` that bench/http profiles with Linux perf
// (`run.ts --perf DIR`), and into the benchmark itself. V8 opens its map of JIT-compiled functions (/tmp/perf-<pid>.map)
// and its log (isolate-…-v8.log, in the working folder) without close-on-exec, so the gateway's sweep of descriptors a
// tool could inherit closes them at the first launch, and V8 then wrote its lines into whatever took those numbers:
// an HTTP connection's socket. This keeps those descriptors from being closed.
// Measurement only; never loaded by the product.
'use strict';
const fs = require('node:fs');

// a descriptor this process opened with openSync is the gateway's own; any other closeSync is looked at (a worker
// thread's isolate, tsx's loader among them, opens its log later, so a list made at start would miss it)
const opened = new Set();
const open = fs.openSync;
fs.openSync = function openSyncNoted(...args) {
  const fd = open.apply(this, args);
  opened.add(fd);
  return fd;
};
const close = fs.closeSync;
fs.closeSync = function closeSyncKeepingPerfMap(fd) {
  if (!opened.delete(fd)) {
    let target = '';
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      // not open: close says so
    }
    if (/^\/tmp\/perf-\d+\.map$|\/isolate-[^/]*-v8\.log$/.test(target)) return;
  }
  return close.call(this, fd);
};
