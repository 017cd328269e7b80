import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutMarker } from '../../src/executors/index.js';
import { api, echoTool, type PolicyGateway, startPolicyGateway, TOKENS } from '../policy/support.js';

// a real `hldp serve` whose secrets include every principal's token; `echo-capped` prints its text under a 200-byte cap
const CAP = 200;
let gateway: PolicyGateway;

beforeAll(async () => {
  gateway = await startPolicyGateway({ 'tools/echo-capped/TOOL.hdlp': echoTool('echo-capped', `constraints: { max_output_bytes: ${CAP} }`) });
});
afterAll(() => gateway?.stop());

// where the cap cuts a printed text of `total` bytes: the head keeps its first `head` bytes, the tail its last `tail`
function cutOf(total: number): { head: number; tail: number } {
  const budget = CAP - Buffer.byteLength(cutMarker(total, total));
  const head = Math.floor(budget / 2);
  return { head, tail: budget - head };
}

describe('a receipt whose output the cap cut', () => {
  describe('when a secret straddles the cut', () => {
    it('shows no part of it on either side of the cut, and counts what it left out', async () => {
      const secret = TOKENS.bot;
      // the text echo prints, and its newline: a secret over the head's end, another over the tail's start
      const total = 600;
      const { head, tail } = cutOf(total);
      const start = 'x'.repeat(head - 6) + secret;
      const end = secret + 'z'.repeat(tail - 7);
      const text = start + 'y'.repeat(total - 1 - start.length - end.length) + end;
      const called = await api(gateway.url, 'POST', '/v1/call', { who: 'admin', body: { tool: 'echo-capped', params: { text } } });
      expect(called.status).toBe(200);
      const receipt = called.body;
      expect(receipt).toMatchObject({ ok: true, output_bytes: total });
      const output = receipt.output as string;
      const parts = /^(x*)\n\[… (\d+) bytes cut of (\d+) …\]\n(z*\n)$/.exec(output);
      expect(parts, output).not.toBeNull();
      const [, kept, cut, of, after] = parts!;
      expect(Number(of)).toBe(total);
      expect(kept!.length + Number(cut) + after!.length).toBe(total);
      expect(receipt.cut_bytes).toBe(Number(cut));
      for (let index = 0; index + 3 <= secret.length; index += 1) expect(output).not.toContain(secret.slice(index, index + 3));
    });
  });
});
