import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FLUSH, packetLine, readPacket } from '../../src/scanner/sources/pkt-line.js';
import { packOfResponse, parseAdvertisement } from '../../src/scanner/sources/upload-pack.js';
import { runs } from '../helpers/property-runs.js';

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
  it('joins the pack data of the side band after the negotiation, leaving out progress', async () => {
    await fc.assert(
      fc.asyncProperty(oid, fc.array(fc.tuple(fc.constantFrom(1, 2), fc.uint8Array({ minLength: 1, maxLength: 100 })), { minLength: 1 }), async (common, bands) => {
        const body = Buffer.concat([packetLine(`ACK ${common}\n`), ...bands.map(([band, data]) => packetLine(Buffer.concat([Buffer.from([band]), data]))), FLUSH]);
        const expected = Buffer.concat(bands.filter(([band]) => band === 1).map(([, data]) => Buffer.from(data)));
        expect((await packOfResponse(body, true)).equals(expected)).toBe(true);
      }),
    );
  });

  it('reads the same pack whatever packets it is cut into, and with the event loop turning past a few thousand of them (review Z13, Z13-2)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 4000 }).map((bytes) => Buffer.from(bytes)),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 5000 }),
        async (pack, cuts, progress, extraProgress) => {
          const packets = [packetLine('NAK\n')];
          let at = 0;
          for (let cut = 0; at < pack.length; cut++) {
            const length = cuts[cut % cuts.length]!;
            packets.push(packetLine(Buffer.concat([Buffer.from([1]), pack.subarray(at, at + length)])));
            at += length;
            // progress between pack data, as a server that ignores no-progress sends it
            const words = progress[cut % Math.max(progress.length, 1)];
            if (words !== undefined) packets.push(packetLine(Buffer.concat([Buffer.from([2]), Buffer.from('x'.repeat(words))])));
          }
          for (let index = 0; index < extraProgress; index++) packets.push(packetLine(Buffer.from([2])));
          packets.push(FLUSH);
          let turns = 0;
          let spinning = true;
          const spin = () => {
            turns++;
            if (spinning) setImmediate(spin);
          };
          setImmediate(spin);
          try {
            expect((await packOfResponse(Buffer.concat(packets), true)).equals(pack)).toBe(true);
          } finally {
            spinning = false;
          }
          // the loop turned at least once every 4,096 packets read (three passes over the side band at most)
          if (packets.length >= 3 * 4096) expect(turns).toBeGreaterThanOrEqual(Math.floor(packets.length / 4096) - 1);
        },
      ),
      { numRuns: runs(40) },
    );
  });

  it('refuses an answer of more progress packets than git sends, or of pack data cut into packets of a few bytes, naming the server\'s misbehaviour', async () => {
    const flood = (count: number, band: number, payload: Buffer) => Buffer.concat(Array.from({ length: count }, () => packetLine(Buffer.concat([Buffer.from([band]), payload]))));
    await expect(packOfResponse(Buffer.concat([packetLine('NAK\n'), flood(10_001, 2, Buffer.alloc(0)), packetLine(Buffer.from('\x01PACK')), FLUSH]), true)).rejects.toThrow(/the server misbehaved: its answer carries more than 10000 progress packets/);
    await expect(packOfResponse(Buffer.concat([packetLine('NAK\n'), flood(70_000, 1, Buffer.from('P')), FLUSH]), true)).rejects.toThrow(/the server misbehaved: it cut the pack into 65537 packets of 1 bytes on average/);
    // as many packets of pack data, each of a size git may send, and git's progress: read, the event loop turning
    // between every 4,096 packets (the side band is read twice: ~38 turns)
    const pack = Buffer.alloc(70_000 * 300, 7);
    let turns = 0;
    let spinning = setImmediate(function again() {
      turns++;
      spinning = setImmediate(again);
    });
    try {
      expect((await packOfResponse(Buffer.concat([packetLine('NAK\n'), flood(70_000, 1, Buffer.alloc(300, 7)), flood(10_000, 2, Buffer.alloc(0)), FLUSH]), true)).equals(pack)).toBe(true);
    } finally {
      clearImmediate(spinning);
    }
    expect(turns).toBeGreaterThanOrEqual(30);
  });

  it('reports the server\'s own error', async () => {
    await expect(packOfResponse(Buffer.concat([packetLine('NAK\n'), packetLine(Buffer.concat([Buffer.from([3]), Buffer.from('upload-pack: not our ref')])), FLUSH]), true)).rejects.toThrow(/not our ref/);
    await expect(packOfResponse(packetLine('ERR access denied\n'), true)).rejects.toThrow(/access denied/);
  });

  it('gives bytes or an Error, whatever the answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.uint8Array({ maxLength: 40 }).map((bytes) => packetLine(Buffer.from(bytes))), fc.constant(FLUSH), fc.constant(packetLine('NAK\n')), fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)))), fc.boolean(), async (parts, sideBand) => {
        try {
          expect(Buffer.isBuffer(await packOfResponse(Buffer.concat(parts), sideBand))).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      }),
    );
  });
});
