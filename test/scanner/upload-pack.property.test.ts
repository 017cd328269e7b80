import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLUSH, packetLine, readPacket } from '../../src/scanner/sources/pkt-line.js';
import { packOfResponse, parseAdvertisement } from '../../src/scanner/sources/upload-pack.js';

// A server's answers are parsed from memory: whatever bytes come, a parser gives what was framed or an Error, and
// never reads past the answer's end.

const oid = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => Buffer.from(bytes).toString('hex'));

describe('pkt-lines', () => {
  it('reads back every packet written, flushes included', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.uint8Array({ maxLength: 200 }))), (packets) => {
        const bytes = Buffer.concat(packets.map((payload) => (payload === null ? FLUSH : packetLine(Buffer.from(payload)))));
        let position = 0;
        for (const payload of packets) {
          const { packet, next } = readPacket(bytes, position);
          if (payload === null) expect(packet).toEqual({ flush: true });
          else expect(packet).toEqual({ flush: false, payload: Buffer.from(payload) });
          position = next;
        }
        expect(position).toBe(bytes.length);
      }),
    );
  });

  it('gives a packet inside the bytes or an Error, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(70), (bytes, start) => {
        const buffer = Buffer.from(bytes);
        try {
          const { packet, next } = readPacket(buffer, start);
          expect(next).toBeLessThanOrEqual(buffer.length);
          if (!packet.flush) expect(packet.payload.length).toBe(next - start - 4);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      }),
    );
  });
});

describe('parseAdvertisement', () => {
  it('reads the branches and capabilities git http-backend advertises, and reads past its tags', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(fc.stringMatching(/^refs\/(heads|tags)\/[a-z]{1,8}$/), oid), { minLength: 1, maxLength: 8, selector: ([name]) => name }), async (refs) => {
        const lines = [packetLine('# service=git-upload-pack\n'), FLUSH];
        refs.forEach(([name, id], index) => lines.push(packetLine(index === 0 ? `${id} ${name}\0multi_ack thin-pack side-band-64k ofs-delta shallow\n` : `${id} ${name}\n`)));
        lines.push(FLUSH);
        const advertisement = await parseAdvertisement(Buffer.concat(lines));
        expect(advertisement.refs).toEqual(new Map(refs.filter(([name]) => name.startsWith('refs/heads/'))));
        expect(advertisement.capabilities).toEqual(new Set(['multi_ack', 'thin-pack', 'side-band-64k', 'ofs-delta', 'shallow']));
      }),
    );
  });

  it('gives refs or an Error, whatever the bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.uint8Array({ maxLength: 80 }).map((bytes) => packetLine(Buffer.from(bytes))), fc.constant(FLUSH), fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)))), async (parts) => {
        try {
          const { refs } = await parseAdvertisement(Buffer.concat(parts));
          for (const [, id] of refs) expect(id).toMatch(/^[0-9a-f]{40}$/);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      }),
    );
  });
});

describe('packOfResponse', () => {
  it('joins the pack data of the side band after the negotiation, leaving out progress', () => {
    fc.assert(
      fc.property(oid, fc.array(fc.tuple(fc.constantFrom(1, 2), fc.uint8Array({ minLength: 1, maxLength: 100 })), { minLength: 1 }), (common, bands) => {
        const body = Buffer.concat([packetLine(`ACK ${common}\n`), ...bands.map(([band, data]) => packetLine(Buffer.concat([Buffer.from([band]), data]))), FLUSH]);
        const expected = Buffer.concat(bands.filter(([band]) => band === 1).map(([, data]) => Buffer.from(data)));
        expect(packOfResponse(body, true).equals(expected)).toBe(true);
      }),
    );
  });

  it('reports the server\'s own error', () => {
    expect(() => packOfResponse(Buffer.concat([packetLine('NAK\n'), packetLine(Buffer.concat([Buffer.from([3]), Buffer.from('upload-pack: not our ref')])), FLUSH]), true)).toThrow(/not our ref/);
    expect(() => packOfResponse(packetLine('ERR access denied\n'), true)).toThrow(/access denied/);
  });

  it('gives bytes or an Error, whatever the answer', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.uint8Array({ maxLength: 40 }).map((bytes) => packetLine(Buffer.from(bytes))), fc.constant(FLUSH), fc.constant(packetLine('NAK\n')), fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)))), fc.boolean(), (parts, sideBand) => {
        try {
          expect(Buffer.isBuffer(packOfResponse(Buffer.concat(parts), sideBand))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      }),
    );
  });
});
