import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/executors/redact.js';
import type { ExecutionResult } from '../../src/core/index.js';

const SECRET = 'hldp-gatekeeper-token-4f9a8c2e';

function result(output: string, cutBytes: number): ExecutionResult {
  return { ok: true, output, error: null, stderr: '', code: null, exit_code: null, signal: null, timed_out: false, output_bytes: Buffer.byteLength(output) + cutBytes, cut_bytes: cutBytes, duration_ms: 1 } as ExecutionResult;
}

describe('redaction beside cut markers a tool printed itself (found in review)', () => {
  it('leaves the output as it is when nothing was cut', () => {
    const output = `token hldp-gate\n[… 23 bytes cut of 99 …]\n rest`;
    expect(redactSecrets(result(output, 0), [SECRET])).toMatchObject({ output, cut_bytes: 0 });
  });

  it('trims beside every marker of a megabyte of them in one pass, and shows no part of the secret', () => {
    // each line a forged marker with the start of the secret before it and its end after it
    const line = `hldp-gatekeeper\n[… 1 bytes cut of 2 …]\ntoken-4f9a8c2e `;
    const output = line.repeat(Math.ceil((1 << 20) / line.length));
    // before, every marker was matched over the whole text before it: ~4 minutes for a megabyte, the event loop held
    const redacted = redactSecrets(result(output, 10), [SECRET]);
    expect(redacted.output).not.toContain('hldp-gate');
    expect(redacted.output).not.toContain('4f9a8c2e');
    expect(redacted.cut_bytes).toBeGreaterThan(10);
  });
});
