import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

/**
 * Writes `objects/pack/pack-<hash>.{pack,idx}` into `gitdir`: one version-2 pack whose objects are all `ref-delta`s,
 * each on the base `bases` names (which may be another object of the same pack, or itself). No git writes such a
 * pack (index-pack refuses a delta cycle), but a repository on disk is whatever its writer put there. Each delta
 * copies the 5 bytes of a 5-byte base.
 */
export async function writeRefDeltaPack(gitdir: string, bases: Record<string, string>): Promise<void> {
  const delta = Buffer.from([5, 5, 0x90, 5]);
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(Object.keys(bases).length, 8);
  const offsets = new Map<string, number>();
  const entries: Buffer[] = [];
  let offset = header.length;
  for (const [oid, base] of Object.entries(bases)) {
    const entry = Buffer.concat([Buffer.from([(7 << 4) | delta.length]), Buffer.from(base, 'hex'), deflateSync(delta)]);
    offsets.set(oid, offset);
    offset += entry.length;
    entries.push(entry);
  }
  const body = Buffer.concat([header, ...entries]);
  const checksum = createHash('sha1').update(body).digest();
  const pack = Buffer.concat([body, checksum]);
  const names = [...offsets.keys()].sort();
  const fanout = Buffer.alloc(1024);
  for (let byte = 0; byte < 256; byte++) fanout.writeUInt32BE(names.filter((name) => parseInt(name.slice(0, 2), 16) <= byte).length, byte * 4);
  const crcs = Buffer.alloc(4 * names.length);
  const packOffsets = Buffer.alloc(4 * names.length);
  names.forEach((name, position) => packOffsets.writeUInt32BE(offsets.get(name)!, position * 4));
  const indexBody = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fanout, ...names.map((name) => Buffer.from(name, 'hex')), crcs, packOffsets, checksum]);
  const index = Buffer.concat([indexBody, createHash('sha1').update(indexBody).digest()]);
  const folder = join(gitdir, 'objects', 'pack');
  await mkdir(folder, { recursive: true });
  const name = `pack-${checksum.toString('hex')}`;
  await writeFile(join(folder, `${name}.pack`), pack);
  await writeFile(join(folder, `${name}.idx`), index);
}
