import { describe, expect, it } from 'vitest';
import { ProgressSent, readCallMeta } from '../../src/mcp-front/call-meta.js';

describe('progress waiting for its turn when the call is cancelled (found in review)', () => {
  it('is not sent after the cancel', async () => {
    const controller = new AbortController();
    const sent: unknown[] = [];
    let clock = 0;
    const progress = new ProgressSent(() => clock);
    const context = { signal: controller.signal, sendNotification: async (n: unknown) => { sent.push(n); } } as never;
    const meta = readCallMeta({ progressToken: 't1' }, context, progress);
    expect(meta.ok).toBe(true);
    const onProgress = (meta as { ok: true; options: { onProgress: (u: { progress: number }) => void } }).options.onProgress;
    onProgress({ progress: 1 }); // sent now
    clock = 10;
    onProgress({ progress: 2 }); // waits for its turn (timer)
    expect(sent).toHaveLength(1);
    controller.abort(); // client cancels; no further update arrives
    // the tools/call handler always awaits flushed() after callTool returns (create-mcp-server.ts:106)
    await progress.flushed();
    expect(sent).toHaveLength(1);
  });
});
