import { beforeEach, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src/core/index.js';
import { runsHere, storeKinds, useStore } from './backends.js';
import { makeReceipt } from './support.js';

describe.each(storeKinds())('$name receipts filtered for the console', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);
  const stored: Receipt[] = [];

  beforeEach(async () => {
    stored.length = 0;
    const at = (minute: number) => `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
    stored.push(
      makeReceipt({ started_at: at(1), ok: false, code: 'NONZERO_EXIT', error: 'ls: cannot access /nope: No such FILE or directory\n', output: '' }),
      makeReceipt({ started_at: at(2), ok: false, code: 'TIMEOUT', error: 'killed after 30000 ms', output: 'half a line' }),
      makeReceipt({ started_at: at(3), ok: true, output: 'the file is here\n' }),
      { ...makeReceipt({ started_at: at(4), ok: false, code: 'NONZERO_EXIT', error: 'permission denied' }), caller: 'agent-7', session: 's-1' } as Receipt,
    );
    for (const receipt of stored) await db.store.receipts.save(receipt);
  });

  it.each([
    ['code', { code: 'NONZERO_EXIT' }, [3, 0]],
    ['a time range', { since: '2026-12-01T10:02:00Z', until: '2026-12-01T10:03:00Z' }, [2, 1]],
    ['text in the error, any case', { text: 'no such file' }, [0]],
    ['text in the output', { text: 'FILE IS' }, [2]],
    ['text in either, failures only', { text: 'half', status: 'failed' as const }, [1]],
    ['caller and session', { caller: 'agent-7', session: 's-1' }, [3]],
    ['text that is a LIKE pattern, taken literally', { text: '%' }, []],
    ['text in the newest rows a search may read', { text: 'no such file', searchRows: 3 }, []],
    ['text in the newest rows that meet the other filters', { text: 'no such file', status: 'failed' as const, searchRows: 3 }, [0]],
    ['text in the newest rows, paged among the matches', { text: 'e', searchRows: 3, limit: 1, offset: 1 }, [2]],
    // review J F3: code is read from the body, so with searchRows it is looked for in the newest rows alone
    ['code in the newest rows a search may read', { code: 'TIMEOUT', searchRows: 2 }, []],
    ['code in the newest rows that meet the other filters', { code: 'TIMEOUT', status: 'failed' as const, searchRows: 2 }, [1]],
    ['code and text in the newest rows', { code: 'NONZERO_EXIT', text: 'denied', searchRows: 4 }, [3]],
  ])('filters by %s', async (_name, query, expected) => {
    const found = await db.store.receipts.list(query);
    expect(found.map((receipt) => receipt.id)).toEqual(expected.map((index) => stored[index]!.id));
  });
});
