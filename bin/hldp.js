#!/usr/bin/env node
// The CLI entry: runs the compiled CLI (built by `npm ci` through the `prepare` script).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`hldp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
