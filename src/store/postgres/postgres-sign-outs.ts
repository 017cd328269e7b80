import { SIGN_OUT_KEPT_PAST_EXPIRY_MS, type SignOutList } from '../store.js';
import { PostgresTable } from './postgres-table.js';

/** Console sign-outs in the `console_sign_outs` table, read by every instance; each sign-out drops the rows whose cookies expired an hour or more ago. */
export class PostgresSignOuts extends PostgresTable implements SignOutList {
  async add(id: string, expiresMs: number): Promise<void> {
    await this.sql.begin(async (transaction) => {
      await transaction`DELETE FROM console_sign_outs WHERE expires_ms <= ${this.now() - SIGN_OUT_KEPT_PAST_EXPIRY_MS}`;
      await transaction`INSERT INTO console_sign_outs (id, expires_ms) VALUES (${id}, ${expiresMs}) ON CONFLICT (id) DO NOTHING`;
    });
  }

  async has(id: string): Promise<boolean> {
    const rows = await this.sql`SELECT 1 FROM console_sign_outs WHERE id = ${id}`;
    return rows.length > 0;
  }
}
