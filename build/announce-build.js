// Says that a rebuild is starting when npx runs it: `npx hldp` in this checkout has npm install the package from its
// folder, which runs the `prepare` script (tsc, then the bundle: a minute or more on a loaded machine) whenever a source
// changed, and npm hides a lifecycle script's output. So the note goes to the terminal itself (/dev/tty, when there is
// one), and a record left in dist/ lets bin/hldp.js say it once more when it starts (review N, N9).
// Usage: node build/announce-build.js (first in the prepare script)
import { mkdirSync, writeFileSync } from 'node:fs';

export const REBUILT_RECORD = 'dist/rebuilt-by-npx';

if (process.env.npm_command === 'exec') {
  const note = 'hldp: npx is building dist/ first (src/ changed since the last build: npm runs this package\'s prepare script, tsc then the bundle; a minute or more). Run `npm run build` after a change to build ahead.\n';
  try {
    writeFileSync('/dev/tty', note);
  } catch {
    // no terminal (CI, a pipe): bin/hldp.js says it from the record
  }
  mkdirSync('dist', { recursive: true });
  writeFileSync(REBUILT_RECORD, `${new Date().toISOString()}\n`);
}
