import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BoundedOutput, boundBytes, minimalEnvironment, runProcess, type ProcessSpec } from '../../src/executors/index.js';
import { outputReads, readOutput } from '../../src/executors/output-reader.js';

function sh(script: string, overrides: Partial<ProcessSpec> = {}): ProcessSpec {
  return { file: 'sh', args: ['-c', script], cwd: tmpdir(), env: minimalEnvironment(), timeoutMs: 30_000, maxOutputBytes: 4096, ...overrides };
}

// about 1.3 MB on stdout and a third of it on stderr: many reads of a pipe, head and tail far apart
const SCRIPT = 'seq 1 200000; seq 1 70000 >&2';
const printed = (count: number): Buffer => Buffer.from(Array.from({ length: count }, (_, index) => `${index + 1}\n`).join(''));

describe('the output of a run, read into one shared buffer', () => {
  // the fast way rests on a Node internal (a pipe socket's _handle): if an upgrade took it away, runs would still
  // work, read the slow way, and only the memory benchmark would tell. This test tells.
  it.each([
    ['from a launcher that waited for it', {}],
    // an environment no shell can export: the run is spawned directly, as the cold path does
    ['spawned directly', { env: { ...minimalEnvironment(), 'NOT-AN-IDENTIFIER': 'x' } }],
  ])('is read the fast way, and keeps exactly what the cap keeps (%s)', async (_, overrides) => {
    const before = { ...outputReads };
    const result = await runProcess(sh(SCRIPT, overrides));
    expect(outputReads).toEqual({ sharedBuffer: before.sharedBuffer + 2, stream: before.stream });
    const stdout = boundBytes(printed(200_000), 4096);
    const stderr = boundBytes(printed(70_000), 4096);
    expect(result).toMatchObject({ ok: true, output: stdout.text, stderr: stderr.text, output_bytes: stdout.totalBytes + stderr.totalBytes, cut_bytes: stdout.cutBytes + stderr.cutBytes });
  });

  it('keeps what arrived before it started reading, in order', async () => {
    const child = spawn('sh', ['-c', 'printf early; sleep 0.3; printf late'], { stdio: ['ignore', 'pipe', 'ignore'] });
    // nothing listens yet: the stream holds what the process wrote, as a launcher's does while it waits
    while (child.stdout.readableLength === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const sink = new BoundedOutput(1024);
    expect(readOutput(child.stdout, sink)).toBe('shared-buffer');
    await once(child, 'close');
    expect(sink.render().text).toBe('earlylate');
  });

  it('stops reading, and lets the child close, when its stream is destroyed', async () => {
    // the run's last resort after a kill: it stops waiting for pipes a process outside the group still holds
    const child = spawn('sh', ['-c', 'printf before; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    const sink = new BoundedOutput(1024);
    expect(readOutput(child.stdout, sink)).toBe('shared-buffer');
    while (sink.totalBytes === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const closed = once(child, 'close');
    child.stdout.destroy();
    process.kill(-child.pid!, 'SIGKILL');
    await closed;
    expect(sink.render().text).toBe('before');
  });

  it('reads any other stream as a stream', async () => {
    const sink = new BoundedOutput(8);
    const stream = Readable.from([Buffer.from('0123'), Buffer.from('456789')]);
    expect(readOutput(stream, sink)).toBe('stream');
    await once(stream, 'end');
    expect(sink.totalBytes).toBe(10);
  });
});
