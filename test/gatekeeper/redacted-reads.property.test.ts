import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, type ExecutionContext } from '../../src/executors/index.js';
import { startGatekeeper, type RunningGatekeeper } from '../../src/gatekeeper/index.js';
import { makeToolDefinition } from '../executors/support/tool-definitions.js';
import { makeTempDir } from '../helpers/git.js';
import { propertyTimeout, runs } from '../helpers/property-runs.js';

// review Z4, F8: a real gatekeeper on 127.0.0.1, its read_bytes windows and base64 reads redacted by the gateway
const SECRET = 'SECRET-API-TOKEN-789';
let temp: { path: string; cleanup: () => Promise<void> };
let gatekeeper: RunningGatekeeper;
let context: ExecutionContext;

beforeAll(async () => {
  temp = await makeTempDir();
  gatekeeper = await startGatekeeper({ root: temp.path });
  context = { gatekeepers: { default: { url: gatekeeper.url, token: gatekeeper.token } }, apis: { default: { url: 'http://127.0.0.1:1', token: SECRET } } };
});
afterAll(async () => {
  await gatekeeper.close();
  await temp.cleanup();
});

const bytesOf = (dump: string): Buffer =>
  Buffer.from([...dump.matchAll(/^[0-9a-f]{8} {2}(.{48})/gm)].flatMap((row) => row[1]!.match(/[0-9a-f]{2}/g)!.map((cell) => Number.parseInt(cell, 16))));

const fill = (length: number): string => '[REDACTED]'.repeat(Math.ceil(length / 10)).slice(0, length);

describe('read_bytes windows over a file holding a configured secret', () => {
  it('joined, give back the file with the secret filled, wherever the windows start and end', async () => {
    const readBytes = makeToolDefinition({ executor: 'gatekeeper', method: 'read_bytes', params_schema: { type: 'object', properties: {} } });
    const readBase64 = makeToolDefinition({ executor: 'gatekeeper', method: 'read_file', params_schema: { type: 'object', properties: {} } });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 60 }), fc.uint8Array({ maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }), async (before, after, lengths) => {
        const file = Buffer.concat([Buffer.from(before), Buffer.from(SECRET), Buffer.from(after)]);
        const expected = Buffer.concat([Buffer.from(before), Buffer.from(fill(SECRET.length)), Buffer.from(after)]);
        await writeFile(join(temp.path, 'f.bin'), file);
        const shown: Buffer[] = [];
        let offset = 0;
        for (let index = 0; offset < file.length; index += 1) {
          const result = await execute(readBytes, { path: 'f.bin', offset, length: lengths[index % lengths.length]! }, context);
          expect(result.ok, result.error ?? '').toBe(true);
          const header = /^\[bytes (\d+)-(\d+) of (\d+)/.exec(result.output)!;
          expect(Number(header[1])).toBe(offset);
          shown.push(bytesOf(result.output));
          offset = Number(header[2]) + 1;
        }
        expect(Buffer.concat(shown).toString('latin1')).toBe(expected.toString('latin1'));
        const base64 = await execute(readBase64, { path: 'f.bin', encoding: 'base64' }, context);
        expect(Buffer.from(base64.output, 'base64').toString('latin1')).toBe(Buffer.concat([Buffer.from(before), Buffer.from('[REDACTED]'), Buffer.from(after)]).toString('latin1'));
      }),
      { numRuns: runs(25) },
    );
  }, propertyTimeout(120_000));
});
