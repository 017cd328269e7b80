import { APPROVAL_COLUMNS, approvalFilters, approvalRow, callKey, toApproval, type ApprovalRow } from '../approval-rows.js';
import { APPROVAL_RUN_GRACE_MS, PRUNE_BATCH, pruneInBatches, retentionCutoff } from '../retention.js';
import type { ApprovalDecision, ApprovalQuery, ApprovalRecord, ApprovalRun, ApprovalRunner, ApprovalStore, DecisionPosition, NewApproval, WaitingApprovals } from '../approval-store.js';
import type { NewEvent, RetentionPolicy, StoredEvent } from '../store.js';
import { postgresText } from './postgres-receipt-reads.js';
import { PostgresTable } from './postgres-table.js';

const COLUMNS = APPROVAL_COLUMNS.split(', ') as Array<keyof ApprovalRow>;

/** Approval requests in PostgreSQL; a decision is one conditional UPDATE, so exactly one decider on any instance wins. */
export class PostgresApprovalStore extends PostgresTable implements ApprovalStore {
  async prune(policy: RetentionPolicy): Promise<number> {
    return pruneInBatches(async () => {
      const now = this.now();
      // the oldest of the newest max_rows: anything before it is beyond them (none: nothing is)
      const beyond =
        policy.maxRows === undefined
          ? this.sql`false`
          : this.sql`(created_ms, id) < (SELECT created_ms, id FROM approvals ORDER BY created_ms DESC, id DESC LIMIT 1 OFFSET ${policy.maxRows - 1})`;
      // decided, its receipt stored (or the grace past), and too old or beyond the newest max_rows
      const result = await this.sql`
        DELETE FROM approvals WHERE id IN (
          SELECT id FROM approvals
          WHERE status <> 'pending' AND (receipt_id IS NOT NULL OR decided_ms < ${now - APPROVAL_RUN_GRACE_MS})
            AND (created_ms < ${retentionCutoff(policy, now)} OR COALESCE(${beyond}, false))
          LIMIT ${PRUNE_BATCH})`;
      return result.count;
    });
  }

  async create(request: NewApproval): Promise<ApprovalRecord> {
    const row = approvalRow(request, this.now());
    await this.sql`INSERT INTO approvals ${this.sql(row, ...COLUMNS)}`;
    return toApproval(row);
  }

  async file(request: NewApproval): Promise<{ record: ApprovalRecord; filed: boolean }> {
    const row = approvalRow(request, this.now(), callKey(request));
    // a pending request may be decided between a conflicting insert and the read: then the call files anew
    for (let attempt = 0; attempt < 5; attempt += 1) {
      // a pending request of the same call holds the key (approvals_pending_by_call): the insert then does nothing, once
      // a concurrent insert of the same key commits (READ COMMITTED); the read after it is a new statement that sees it
      const inserted = await this.sql`INSERT INTO approvals ${this.sql(row, ...COLUMNS)} ON CONFLICT DO NOTHING`;
      if (inserted.count > 0) return { record: toApproval(row), filed: true };
      const held = await this.repeated(request);
      if (held) return { record: held, filed: false };
    }
    throw new Error(`approval request of '${request.tool}' neither filed nor found pending, five times`);
  }

  async repeated(request: NewApproval): Promise<ApprovalRecord | undefined> {
    const [row] = await this.sql<ApprovalRow[]>`
      UPDATE approvals SET token_hash = coalesce(${request.tokenHash ?? null}::text, token_hash) WHERE call_key = ${callKey(request)} AND status = 'pending'
      RETURNING ${this.sql(COLUMNS)}`;
    return row && toApproval(row);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    // a NUL, which PostgreSQL's text refuses, is in no id: it matches nothing, as on SQLite (review Z11, Z11-3)
    if (!postgresText(id)) return undefined;
    const [row] = await this.sql<ApprovalRow[]>`SELECT ${this.sql(COLUMNS)} FROM approvals WHERE id = ${id}`;
    return row && toApproval(row);
  }

  async byTokenHash(tokenHash: string): Promise<ApprovalRecord | undefined> {
    if (!postgresText(tokenHash)) return undefined;
    const [row] = await this.sql<ApprovalRow[]>`SELECT ${this.sql(COLUMNS)} FROM approvals WHERE token_hash = ${tokenHash}`;
    return row && toApproval(row);
  }

  async list(query: ApprovalQuery = {}): Promise<ApprovalRecord[]> {
    const { where, values, limit, offset } = approvalFilters(query, 'postgres');
    // a filter holding a NUL matches nothing, as on SQLite, and never reaches the driver (review Z11, Z11-3)
    if (values.some((value) => typeof value === 'string' && !postgresText(value))) return [];
    let index = 0;
    const text = `SELECT ${APPROVAL_COLUMNS} FROM approvals ${where.replace(/\?/g, () => `$${++index}`)} ORDER BY created_ms DESC, id DESC LIMIT $${++index} OFFSET $${++index}`;
    const rows = await this.sql.unsafe<ApprovalRow[]>(text, [...values, limit, offset]);
    return rows.map(toApproval);
  }

  async decide(id: string, decision: ApprovalDecision, runner?: ApprovalRunner): Promise<ApprovalRecord | undefined> {
    if (!postgresText(id)) return undefined;
    const now = this.now();
    // READ COMMITTED: a second UPDATE of the row waits for the first to commit, then sees it decided and matches nothing
    const expiry = decision.status === 'expired' ? this.sql`expires_ms <= ${now}` : this.sql`expires_ms > ${now}`;
    const [row] = await this.sql<ApprovalRow[]>`
      UPDATE approvals SET status = ${decision.status}, decided_ms = ${now}, decided_by = ${decision.by}, decision_reason = ${decision.reason}, decided_via = ${decision.via},
        run_by = ${runner?.by ?? null}, run_lease_ms = ${runner ? now + runner.leaseMs : null}
      WHERE id = ${id} AND status = 'pending' AND ${expiry}
      RETURNING ${this.sql(COLUMNS)}`;
    return row && toApproval(row);
  }

  async settle(id: string, receiptId: string, ran?: ApprovalRun): Promise<boolean> {
    if (!postgresText(id)) return false;
    // READ COMMITTED: a second settler waits for the first to commit, then finds a receipt recorded and matches nothing
    const result = await this.sql`UPDATE approvals SET ${this.#settling(receiptId, ran)} WHERE id = ${id} AND receipt_id IS NULL`;
    return result.count > 0;
  }

  async settleAnnouncing(id: string, receiptId: string, event: NewEvent, ran?: ApprovalRun): Promise<StoredEvent | undefined> {
    // one statement, one transaction: the event is appended (under the events lock, as every append) only for a row
    // the update settled — a set-returning function in the select list runs once per row of its FROM, here none or one
    const [row] = await this.sql<Array<{ seq: string }>>`
      WITH settled AS (UPDATE approvals SET ${this.#settling(receiptId, ran)} WHERE id = ${id} AND receipt_id IS NULL RETURNING id)
      SELECT hldp_append_events(${this.sql.array([event.type])}::text[], ${this.sql.array([event.at_ms])}::bigint[], ${this.sql.array([event.data])}::text[]) AS seq FROM settled`;
    return row === undefined ? undefined : { seq: Number(row.seq), ...event };
  }

  /** The SET of a settling update: the receipt, and `ran` put back as the request's run when given (review userY, Y5). */
  #settling(receiptId: string, ran: ApprovalRun | undefined) {
    const runBy = ran?.by ?? null;
    const leaseMs = ran ? Date.parse(ran.lease_until) : null;
    return this.sql`receipt_id = ${receiptId}, run_by = coalesce(${runBy}::text, run_by), run_lease_ms = coalesce(${leaseMs}::bigint, run_lease_ms)`;
  }

  async renew(id: string, runner: ApprovalRunner): Promise<boolean> {
    if (!postgresText(id)) return false;
    const result = await this.sql`UPDATE approvals SET run_lease_ms = ${this.now() + runner.leaseMs} WHERE id = ${id} AND run_by = ${runner.by} AND receipt_id IS NULL`;
    return result.count > 0;
  }

  async lapsed(limit: number): Promise<ApprovalRecord[]> {
    const rows = await this.sql<ApprovalRow[]>`
      SELECT ${this.sql(COLUMNS)} FROM approvals WHERE status = 'approved' AND receipt_id IS NULL AND run_lease_ms <= ${this.now()} ORDER BY run_lease_ms LIMIT ${limit}`;
    return rows.map(toApproval);
  }

  async takeOver(seen: ApprovalRecord, runner: ApprovalRunner): Promise<ApprovalRecord | undefined> {
    if (!seen.run) return undefined;
    const now = this.now();
    // READ COMMITTED: a second taker waits for the first to commit, then finds the lease moved and matches nothing
    const [row] = await this.sql<ApprovalRow[]>`
      UPDATE approvals SET run_by = ${runner.by}, run_lease_ms = ${now + runner.leaseMs}
      WHERE id = ${seen.id} AND status = 'approved' AND receipt_id IS NULL AND run_by = ${seen.run.by}
        AND run_lease_ms = ${Date.parse(seen.run.lease_until)} AND run_lease_ms <= ${now}
      RETURNING ${this.sql(COLUMNS)}`;
    return row && toApproval(row);
  }

  async claim(id: string, runner: ApprovalRunner): Promise<ApprovalRecord | undefined> {
    if (!postgresText(id)) return undefined;
    const now = this.now();
    // READ COMMITTED: a second claimer waits for the first to commit, then finds the run taken and matches nothing
    const [row] = await this.sql<ApprovalRow[]>`
      UPDATE approvals SET run_by = ${runner.by}, run_lease_ms = ${now + runner.leaseMs}
      WHERE id = ${id} AND ${this.#unclaimed()} AND expires_ms > ${now}
      RETURNING ${this.sql(COLUMNS)}`;
    return row && toApproval(row);
  }

  async unclaimed(limit: number, after?: DecisionPosition): Promise<ApprovalRecord[]> {
    const [decidedMs, id] = [after?.decidedMs ?? -1, after?.id ?? ''];
    // id COLLATE "C": ordered by its bytes, as SQLite orders it, whatever the database's collation
    const rows = await this.sql<ApprovalRow[]>`
      SELECT ${this.sql(COLUMNS)} FROM approvals
      WHERE ${this.#unclaimed()} AND (decided_ms > ${decidedMs} OR (decided_ms = ${decidedMs} AND id COLLATE "C" > ${id}))
      ORDER BY decided_ms, id COLLATE "C" LIMIT ${limit}`;
    return rows.map(toApproval);
  }

  async expireUnclaimed(id: string): Promise<ApprovalRecord | undefined> {
    if (!postgresText(id)) return undefined;
    const [row] = await this.sql<ApprovalRow[]>`
      UPDATE approvals SET status = 'expired' WHERE id = ${id} AND ${this.#unclaimed()} AND expires_ms <= ${this.now()}
      RETURNING ${this.sql(COLUMNS)}`;
    return row && toApproval(row);
  }

  /** Approved at an instance that runs calls elsewhere, and no process has taken its run yet. */
  #unclaimed() {
    return this.sql`status = 'approved' AND receipt_id IS NULL AND run_lease_ms IS NULL AND run_by IS NULL`;
  }

  async pendingCount(caller: string): Promise<number> {
    const [row] = await this.sql<Array<{ count: string }>>`SELECT count(*) AS count FROM approvals WHERE caller = ${caller} AND status = 'pending'`;
    return Number(row?.count ?? 0);
  }

  async waiting(): Promise<WaitingApprovals> {
    const now = this.now();
    const [row] = await this.sql<Array<{ count: string; oldest: string | null }>>`SELECT count(*) AS count, min(created_ms) AS oldest FROM approvals WHERE status = 'pending' AND expires_ms > ${now}`;
    const count = Number(row?.count ?? 0);
    return row?.oldest == null ? { count } : { count, oldestAgeMs: Math.max(0, now - Number(row.oldest)) };
  }

  async due(limit: number): Promise<ApprovalRecord[]> {
    const rows = await this.sql<ApprovalRow[]>`SELECT ${this.sql(COLUMNS)} FROM approvals WHERE status = 'pending' AND expires_ms <= ${this.now()} ORDER BY expires_ms LIMIT ${limit}`;
    return rows.map(toApproval);
  }
}
