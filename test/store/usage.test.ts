import { describe, expect, it } from 'vitest';
import type { UsageEvent } from '../../src/core/index.js';
import { USAGE_EVENTS_KEPT } from '../../src/store/index.js';
import { runsHere, storeKinds, useStore } from './backends.js';

const at = (minute: number): string => `2026-12-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const match = (minute: number, intent: string): UsageEvent => ({ kind: 'match', session: 's1', at: at(minute), commit: 'c', intent, tools: [], outcome: 'none' });

describe.each(storeKinds())('$name usage log', (kind) => {
  if (!runsHere(kind)) return;
  const db = useStore(kind);

  describe('when events are recorded', () => {
    it('returns them whole, oldest first, from since on', async () => {
      const call: UsageEvent = { kind: 'call', session: 's1', at: at(3), commit: 'c', tool: 'git-ops' };
      for (const event of [match(5, 'later'), call, match(1, 'first')]) await db.store.usage.record(event);
      expect(await db.store.usage.list()).toEqual([match(1, 'first'), call, match(5, 'later')]);
      expect(await db.store.usage.list({ since: at(3) })).toEqual([call, match(5, 'later')]);
      expect(await db.store.usage.list({ limit: 1 })).toEqual([match(1, 'first')]);
    });

    it('returns events another store over the same database recorded', async () => {
      await db.store.usage.record(match(1, 'from one instance'));
      const other = await db.backend.open();
      await other.usage.record(match(2, 'from another'));
      expect((await db.store.usage.list()).map((event) => event.kind === 'match' && event.intent)).toEqual(['from one instance', 'from another']);
    });

    it('refuses an event without a valid time, and a since that is no time', async () => {
      await expect(db.store.usage.record({ ...match(1, 'x'), at: 'yesterday' })).rejects.toThrow(/no valid time/);
      await expect(db.store.usage.list({ since: 'soon' })).rejects.toThrow(/'since' must be an ISO date/);
    });
  });

  describe('when the log holds more than it keeps', () => {
    it('drops the oldest on an instance\'s first record, and a list without since reads all that is left', async () => {
      const old = USAGE_EVENTS_KEPT + 5;
      const fill =
        kind.name === 'SQLite'
          ? "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO usage_events (session, kind, at_ms, body) SELECT 'old', 'call', i, '{\"kind\":\"call\"}' FROM n"
          : "INSERT INTO usage_events (session, kind, at_ms, body) SELECT 'old', 'call', i, '{\"kind\":\"call\"}' FROM generate_series(1, ?::int) AS i";
      await db.backend.sql(fill, [old]);
      await db.store.usage.record(match(1, 'newest'));
      const [kept] = await db.backend.sql("SELECT COUNT(*) AS count, MIN(seq) AS first FROM usage_events");
      expect({ count: Number(kept!.count), first: Number(kept!.first) }).toEqual({ count: USAGE_EVENTS_KEPT, first: 7 });
      const listed = await db.store.usage.list();
      expect(listed).toHaveLength(USAGE_EVENTS_KEPT);
      expect(listed.at(-1)).toEqual(match(1, 'newest'));
    });
  });
});
