import type { RequestListener } from 'node:http';
import { FLUSH, packetLine } from '../../src/scanner/sources/pkt-line.js';

/** An upload-pack answer carrying `pack` on side band 1, after a NAK, in packets of at most 65,520 bytes. */
export function sideBandAnswer(pack: Buffer): Buffer {
  const packets = [packetLine('NAK\n')];
  for (let at = 0; at < pack.length; at += 65_515) packets.push(packetLine(Buffer.concat([Buffer.from([1]), pack.subarray(at, at + 65_515)])));
  return Buffer.concat([...packets, FLUSH]);
}

/**
 * A request handler implementing the smart-HTTP contract with fixed answers: `advertisement` to the ref listing (GET)
 * and `answer` to every fetch (POST). Hostile servers are made of it (`testFolder().listen`): a lying advertisement, a
 * crafted pack.
 */
export function uploadPackHandler(advertisement: Buffer, answer: Buffer): RequestListener {
  return (request, response) => {
    request.resume();
    if (request.method === 'POST') {
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
      response.end(answer);
      return;
    }
    response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
    response.end(advertisement);
  };
}
