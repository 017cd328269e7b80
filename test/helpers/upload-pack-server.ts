import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FLUSH, packetLine } from '../../src/scanner/sources/pkt-line.js';

/** An upload-pack answer carrying `pack` on side band 1, after a NAK, in packets of at most 65,520 bytes. */
export function sideBandAnswer(pack: Buffer): Buffer {
  const packets = [packetLine('NAK\n')];
  for (let at = 0; at < pack.length; at += 65_515) packets.push(packetLine(Buffer.concat([Buffer.from([1]), pack.subarray(at, at + 65_515)])));
  return Buffer.concat([...packets, FLUSH]);
}

/**
 * A local HTTP server implementing the smart-HTTP contract with fixed answers: `advertisement` to the ref listing
 * (GET) and `answer` to every fetch (POST). Hostile servers are made of it: a lying advertisement, a crafted pack.
 */
export async function serveUploadPack(advertisement: Buffer, answer: Buffer): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    if (request.method === 'POST') {
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
      response.end(answer);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
    response.end(advertisement);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools.git` };
}
