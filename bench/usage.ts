import { basename } from 'node:path';

/**
 * A bench script run without the arguments it needs prints its usage on stderr and exits 2, as `hldp` does, rather
 * than a stack trace or a crash on `undefined` further on (review userZ3, Z3-5: serve-ready.ts with no arguments said
 * `Cannot find module '…/undefined'`).
 */
export function usage(text: string): never {
  process.stderr.write(`${basename(process.argv[1] ?? 'bench')}: missing arguments\nusage: ${text}\n`);
  process.exit(2);
}
