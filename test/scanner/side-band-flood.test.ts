// Review Z13, Z13-2: a fetch's answer was read in synchronous passes a packet at a time, with no bound on their number:
// a server answering a rescan's fetch with 2 million 5-byte progress packets (`0005\x02`: band 2, which we ask none of)
// held `hldp serve`'s event loop ~5.6 s (a /healthz beside it answered in 7 s), and the rescan then succeeded, nothing
// saying the server misbehaved. Now the loop turns every few thousand packets, and an answer of more progress packets
// than git sends is refused: the rescan fails naming it (SCAN_FAILED), and the last good index stays served. Real
// `git http-backend` behind a front that floods the fetch's answer, a real `hldp serve`.
import { afterEach, describe, expect, it } from 'vitest';
import { readPacket } from '../../src/scanner/sources/pkt-line.js';
import { makeToolYaml } from '../helpers/git.js';
import { startFloodingFront } from '../helpers/flooding-front.js';
import { request } from '../helpers/http-server.js';
import { spawnService, type ServiceProcess } from '../helpers/spawn-service.js';
import { testFolder } from '../helpers/test-folder.js';

const folder = testFolder('hldp-side-band-flood-');
const services: ServiceProcess[] = [];
// before the folder's own: the service goes before the git servers and the folder
afterEach(async () => {
  while (services.length) await services.pop()!.stop();
});

const FLOOD = 2_000_000;

/** `answer` (a side-band fetch answer) with `count` empty progress packets before its first packet of pack data. */
function flooded(answer: Buffer, count: number): Buffer {
  let position = 0;
  for (;;) {
    const { packet, next } = readPacket(answer, position);
    if (!packet.flush && packet.payload[0] === 1) break;
    position = next;
  }
  return Buffer.concat([answer.subarray(0, position), Buffer.from('0005\x02'.repeat(count), 'latin1'), answer.subarray(position)]);
}

describe('hldp serve over a git server that answers a rescan\'s fetch with millions of tiny progress packets', () => {
  it('refuses the answer naming the server\'s misbehaviour, keeps serving the last good index, and answers /healthz meanwhile', async () => {
    const served = await folder.serve();
    const first = await served.push({ 'tools/alpha/TOOL.hdlp': makeToolYaml('alpha') }, 'alpha');
    const front = await startFloodingFront(folder, served.url, false, (body) => flooded(body, FLOOD));
    // no background poll: the rescan is the test's POST /v1/scan
    const service = await spawnService(['serve', '--port', '0', '--repo', front.url], { ...folder.cliEnv(), HLDP_POLL_INTERVAL_MS: '3600000' }, / at (http:\/\/[\d.:]+)\n/);
    services.push(service);
    expect((await request(service, 'GET', '/healthz')).json).toMatchObject({ commit: first, tools: 1 });

    await served.push({ 'tools/beta/TOOL.hdlp': makeToolYaml('beta') }, 'beta');
    front.flood(true);
    const scan = request(service, 'POST', '/v1/scan');
    // asked while the rescan runs or after it: answered either way (on main, held while the answer was read)
    const health = await request(service, 'GET', '/healthz');
    expect(health.status).toBe(200);
    const answered = await scan;
    expect(front.floodedAnswers()).toBeGreaterThan(0);
    // on main: 200, the new commit served, nothing said of the server
    expect(answered.status, JSON.stringify(answered.json)).toBe(502);
    expect(answered.json).toMatchObject({ code: 'SCAN_FAILED' });
    expect(answered.json.error).toMatch(/the server misbehaved: its answer carries more than 10000 progress packets \(side band 2\)/);
    expect(answered.json.error).toContain(`still serving ${first}`);
    expect((await request(service, 'GET', '/healthz')).json).toMatchObject({ commit: first, tools: 1 });
    expect((await request(service, 'GET', '/v1/tools/alpha')).status).toBe(200);
    expect((await request(service, 'GET', '/v1/tools/beta')).status).toBe(404);

    // the server mended: the next rescan serves the new commit
    front.flood(false);
    const mended = await request(service, 'POST', '/v1/scan');
    expect(mended.status, JSON.stringify(mended.json)).toBe(200);
    expect((await request(service, 'GET', '/v1/tools/beta')).status).toBe(200);
    expect(service.child.exitCode).toBeNull();
  }, 180_000);
});
