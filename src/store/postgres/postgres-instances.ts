import type { RunPlace } from '../approval-store.js';
import { pruneRoll } from '../approval-rows.js';
import { canonicalJson } from '../canonical-params.js';
import type { InstanceRoll, LiveInstance } from '../store.js';
import { PostgresTable } from './postgres-table.js';

// the database's clock in ms: the roll's one clock, whichever host an instance runs on
const DATABASE_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * The roll of live instances in the `gateway_instances` table, read by every instance: each beat renews a row and drops
 * the long-quiet ones. Its times are the database's (SQL `now()`, unlike the other tables, which take the gateway's
 * clock): instances on hosts whose clocks differ by 30 s never saw each other, and 10 min apart deleted each other's
 * rows at every beat (review Z12, Z12-8).
 */
export class PostgresInstances extends PostgresTable implements InstanceRoll {
  async beat(by: string, place: RunPlace, keptMs: number): Promise<{ rows: LiveInstance[]; renewed: boolean }> {
    const rows = await this.sql.begin(async (transaction) => {
      await transaction.unsafe(pruneRoll("rule::json #>> '{filed_by,by}'", `${DATABASE_MS} - $1`), [keptMs]);
      await transaction.unsafe(
        `INSERT INTO gateway_instances (instance, place, seen_ms) VALUES ($1, $2, ${DATABASE_MS})
         ON CONFLICT (instance) DO UPDATE SET place = excluded.place, seen_ms = excluded.seen_ms, left_ms = NULL`,
        [by, canonicalJson(place)],
      );
      return transaction.unsafe<Array<{ instance: string; place: string; quiet_ms: string | number; left_ms: string | number | null }>>(
        `SELECT instance, place, ${DATABASE_MS} - seen_ms AS quiet_ms, left_ms FROM gateway_instances ORDER BY instance`,
      );
    });
    return { rows: rows.map((row) => ({ by: row.instance, place: JSON.parse(row.place) as RunPlace, quiet_ms: Number(row.quiet_ms), left: row.left_ms !== null })), renewed: true };
  }

  async leave(by: string): Promise<void> {
    await this.sql.unsafe(`UPDATE gateway_instances SET left_ms = ${DATABASE_MS} WHERE instance = $1`, [by]);
  }
}
