// Serves the git repositories under a folder over smart HTTP (`git http-backend` behind test/helpers' server) in a
// process of its own, so that a benchmark's CPU time is the scanner's alone. Prints the URL, then serves until killed.
// Usage: npx tsx bench/scan/serve-git.ts ROOT
import { startGitHttpServer } from '../../test/helpers/git-http-server.js';
import { usage } from '../usage.js';

const root = process.argv[2];
if (!root) usage('npx tsx bench/scan/serve-git.ts ROOT');
const server = await startGitHttpServer({ projectRoot: root });
process.stdout.write(`${server.url}\n`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
