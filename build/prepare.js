// The prepare script: npm runs it after `npm ci` / `npm install` in this checkout, and npx runs it each time it
// installs this package from its folder — the first `npx hldp` in a fresh clone included, right after `npm ci` built
// everything. Under npx a dist/ as new as its sources is kept (the fresh clone's first `npx hldp serve` started a
// minute or more later than it needed to, building the same files a second time); otherwise the patches to
// node_modules are applied and dist/ is built, the rebuild announced first (build/announce-build.js).
// Usage: node build/prepare.js (from the package folder: npm runs lifecycle scripts there)
import { execSync } from 'node:child_process';
import { distIsStale } from './dist-staleness.js';

if (process.env.npm_command === 'exec' && !distIsStale(process.cwd())) process.exit(0);
await import('./announce-build.js');
try {
  execSync('patch-package && npm run build', { stdio: 'inherit' });
} catch (error) {
  process.exit(typeof error.status === 'number' ? error.status : 1);
}
