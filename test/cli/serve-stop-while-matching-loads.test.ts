// memz23, fixm25: `hldp serve` stopped while its intent matching was still being prepared logged "gateway stopped",
// then "intent matching not prepared: the server is closing": closing the gateway stopped the preparation but did not
// wait for it to end, so a log's reader (or a supervisor's) took the stop line for the last and met another after it.
// The gateway now waits for the preparation to end (it ends at its next turn) before it says it stopped. The registry
// is large (a few thousand generated tools, no search index kept yet) so that its preparation is still under way when
// the signal comes; the test asserts what the server says, in order, never how long anything took.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRepository } from '../../bench/scan/generate-repository.js';
import { loggedMessages, useServiceHome } from '../helpers/serve-process.js';

const TOOLS = 3000;
const home = useServiceHome('info');

describe('hldp serve stopped while its intent matching is being prepared', () => {
  it('stops the preparation, and "gateway stopped" is the last line of its log', { timeout: 300_000 }, async () => {
    const repo = join(home.path, 'repo');
    await generateRepository(repo, TOOLS);
    const server = await home.serve(['--repo', repo]);
    // at once, as a supervisor that waits for the line does
    expect(await server.stop()).toBe(0);
    const said = loggedMessages(server.stderr());
    // the preparation was under way when the signal came (else this test would show nothing)
    expect(said).toContain('intent matching not prepared: the server is closing');
    expect(said).not.toContain('intent matching ready');
    expect(said.at(-1), server.stderr()).toBe('gateway stopped');
  });
});
