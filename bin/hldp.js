#!/usr/bin/env node
// The CLI entry: runs the CLI's bundle (dist/bundle/, built by `npm run build`, which `npm ci` runs through the `prepare`
// script): a few files for Node to read instead of the ~600 modules of dist/ and node_modules (issue #18).
import { main } from '../dist/bundle/hldp.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`hldp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
