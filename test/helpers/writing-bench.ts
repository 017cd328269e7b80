// A benchmark as bench/ writes one: a work folder from bench/work-folder.ts with many files in it, and a child that
// keeps writing in it for a moment after Ctrl-C (its own process group stands for a git still copying its hooks under
// load). Prints the folder once the writer runs, then waits for the signal.
// Usage: node --import tsx test/helpers/writing-bench.ts
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchFolder } from '../../bench/work-folder.js';

const folder = benchFolder('hldp-bench-writing-');
const hooks = join(folder, 'hooks');
mkdirSync(hooks);
for (let file = 0; file < 5000; file++) writeFileSync(join(hooks, `sample-${file}`), 'x');
// writes new files for 2 s, or until the folder is gone
const script = 'end=$((SECONDS+2)); i=0; while [ $SECONDS -lt $end ]; do echo > hooks/late-$i 2>/dev/null || break; i=$((i+1)); done';
spawn('bash', ['-c', script], { cwd: folder, detached: true, stdio: 'ignore' }).unref();
process.stdout.write(`${folder}\n`);
setInterval(() => undefined, 1000);
