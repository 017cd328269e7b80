import type { RunPlace } from '../approval-store.js';
import { canonicalJson } from '../canonical-params.js';
import type { InstanceRoll, LiveInstance } from '../store.js';
import { PostgresTable } from './postgres-table.js';

/** The roll of live instances in the `gateway_instances` table, read by every instance: each beat renews a row and drops the stale ones. */
export class PostgresInstances extends PostgresTable implements InstanceRoll {
  async beat(by: string, place: RunPlace, staleBeforeMs: number): Promise<void> {
    await this.sql.begin(async (transaction) => {
      await transaction`DELETE FROM gateway_instances WHERE seen_ms < ${staleBeforeMs}`;
      await transaction`INSERT INTO gateway_instances (instance, place, seen_ms) VALUES (${by}, ${canonicalJson(place)}, ${this.now()})
        ON CONFLICT (instance) DO UPDATE SET place = excluded.place, seen_ms = excluded.seen_ms`;
    });
  }

  async live(sinceMs: number): Promise<LiveInstance[]> {
    const rows = await this.sql<Array<{ instance: string; place: string; seen_ms: string | number }>>`SELECT instance, place, seen_ms FROM gateway_instances WHERE seen_ms >= ${sinceMs} ORDER BY instance`;
    return rows.map((row) => ({ by: row.instance, place: JSON.parse(row.place) as RunPlace, seen_ms: Number(row.seen_ms) }));
  }

  async leave(by: string): Promise<void> {
    await this.sql`DELETE FROM gateway_instances WHERE instance = ${by}`;
  }
}
