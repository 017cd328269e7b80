// Review Z16, Z16-1: the lines an upload-pack answer begins with (ACK/NAK) had no count. We ask no multi_ack and send
// at most one have, so git answers with one of them; a server answering a gibibyte of `NAK` lines was read to the
// answer's limit (64 s of CPU, 2.2 GB, at every fetch) before the clone failed, and one answering 100,000 of them before
// its real pack was cloned as if nothing were wrong. Now more than a request can draw are refused as the server's
// misbehaviour. Real `git http-backend` behind a front that adds the lines, a real `hldp scan`.
import { describe, expect, it } from 'vitest';
import { makeToolYaml } from '../helpers/git.js';
import { startFloodingFront } from '../helpers/flooding-front.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-ack-flood-');
const NAKS = 100_000;

describe('hldp scan of a git server whose fetch answer begins with 100,000 NAK lines', () => {
  it('refuses the answer naming the server\'s misbehaviour, and clones once the server mends', async () => {
    const served = await folder.serve();
    await served.push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') }, 'alpha');
    const front = await startFloodingFront(folder, served.url, true, (body) => Buffer.concat([Buffer.from('0008NAK\n'.repeat(NAKS), 'latin1'), body]));
    const refused = await folder.scan(front.url);
    expect(front.floodedAnswers()).toBeGreaterThan(0);
    // on main: exit 0, the tool cloned, nothing said of the server
    expect(refused.code, refused.stdout + refused.stderr).not.toBe(0);
    expect(refused.stderr + refused.stdout).toMatch(/the server misbehaved: its answer begins with more than \d+ acknowledgement lines \(ACK\/NAK\)/);

    front.flood(false);
    const mended = await folder.scan(front.url);
    expect(mended.code, mended.stderr).toBe(0);
    expect(JSON.parse(mended.stdout)).toMatchObject({ tools: [expect.objectContaining({ name: 'alpha' })] });
  }, 120_000);
});
