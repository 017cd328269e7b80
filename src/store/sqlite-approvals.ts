import type { Database, Statement } from 'better-sqlite3';
import { APPROVAL_COLUMNS, approvalFilters, approvalRow, callKey, toApproval, type ApprovalRow } from './approval-rows.js';
import { APPROVAL_RUN_GRACE_MS, PRUNE_BATCH, pruneInBatches, retentionCutoff } from './retention.js';
import type { ApprovalDecision, ApprovalQuery, ApprovalRecord, ApprovalRun, ApprovalRunner, ApprovalStore, DecisionPosition, NewApproval, WaitingApprovals } from './approval-store.js';
import type { NewEvent, RetentionPolicy, StoredEvent } from './store.js';

/** Approval requests in the `approvals` table; a decision is one conditional UPDATE, so exactly one decider wins. */
export class SqliteApprovalStore implements ApprovalStore {
  readonly #database: Database;
  readonly #now: () => number;
  readonly #insert: Statement;
  readonly #insertOnce: Statement;
  readonly #repeated: Statement<[string | null, string], ApprovalRow>;
  readonly #file: (request: NewApproval) => { record: ApprovalRecord; filed: boolean };
  readonly #byId: Statement<[string], ApprovalRow>;
  readonly #byToken: Statement<[string], ApprovalRow>;
  readonly #decideBefore: Statement<[string, number, string | null, string | null, string, string | null, number | null, string, number], ApprovalRow>;
  readonly #decideAfter: Statement<[string, number, string | null, string | null, string, string | null, number | null, string, number], ApprovalRow>;
  readonly #settle: Statement<[string, string | null, number | null, string]>;
  readonly #settleAnnouncing: (id: string, receiptId: string, event: NewEvent, ran: ApprovalRun | undefined) => StoredEvent | undefined;
  readonly #renew: Statement<[number, string, string]>;
  readonly #lapsed: Statement<[number, number], ApprovalRow>;
  readonly #takeOver: Statement<[string, number, string, string, number, number], ApprovalRow>;
  readonly #due: Statement<[number, number], ApprovalRow>;
  readonly #waiting: Statement<[number], { count: number; oldest: number | null }>;
  readonly #claim: Statement<[string, number, string, number], ApprovalRow>;
  readonly #unclaimed: Statement<[number, number, string, number], ApprovalRow>;
  readonly #expireUnclaimed: Statement<[string, number], ApprovalRow>;
  readonly #listings = new Map<string, Statement<Array<string | number>, ApprovalRow>>();
  readonly #newest: Statement<[number], { created_ms: number; id: string }>;
  readonly #prune: Statement<[number, number, number, string]>;

  constructor(database: Database, options: { now: () => number }) {
    this.#database = database;
    this.#now = options.now;
    this.#insert = database.prepare(`INSERT INTO approvals (${APPROVAL_COLUMNS}) VALUES (${APPROVAL_COLUMNS.split(',').map(() => '?').join(', ')})`);
    // a pending request of the same call holds the key (approvals_pending_by_call): the insert then does nothing
    this.#insertOnce = database.prepare(`INSERT INTO approvals (${APPROVAL_COLUMNS}) VALUES (${APPROVAL_COLUMNS.split(',').map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`);
    this.#repeated = database.prepare(`UPDATE approvals SET token_hash = coalesce(?, token_hash) WHERE call_key = ? AND status = 'pending' RETURNING ${APPROVAL_COLUMNS}`);
    // one write transaction: no other process files or decides between the insert and the read
    const filing = database.transaction((request: NewApproval) => {
      const row = approvalRow(request, this.#now(), callKey(request));
      if (this.#insertOnce.run(...columnValues(row)).changes > 0) return { record: toApproval(row), filed: true };
      const held = this.#repeated.get(request.tokenHash ?? null, row.call_key!);
      if (!held) throw new Error(`approval request of '${request.tool}' neither filed nor found pending`);
      return { record: toApproval(held), filed: false };
    });
    this.#file = (request) => filing.immediate(request);
    this.#byId = database.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = ?`);
    this.#byToken = database.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE token_hash = ?`);
    const decide = (condition: string) =>
      database.prepare<[string, number, string | null, string | null, string, string | null, number | null, string, number], ApprovalRow>(
        `UPDATE approvals SET status = ?, decided_ms = ?, decided_by = ?, decision_reason = ?, decided_via = ?, run_by = ?, run_lease_ms = ?
         WHERE id = ? AND status = 'pending' AND ${condition} RETURNING ${APPROVAL_COLUMNS}`,
      );
    this.#decideBefore = decide('expires_ms > ?');
    this.#decideAfter = decide('expires_ms <= ?');
    // `ran`'s columns null keep the run as it is; set, they put back the run that lapsed (review userY, Y5)
    this.#settle = database.prepare('UPDATE approvals SET receipt_id = ?, run_by = coalesce(?, run_by), run_lease_ms = coalesce(?, run_lease_ms) WHERE id = ? AND receipt_id IS NULL');
    const append = database.prepare<[string, number, string]>('INSERT INTO events (type, at_ms, data) VALUES (?, ?, ?)');
    // one transaction: no reader of the file, in any process, sees the request resolved and its event not yet there
    const settling = database.transaction((id: string, receiptId: string, event: NewEvent, ran: ApprovalRun | undefined): StoredEvent | undefined => {
      if (this.#settleRow(id, receiptId, ran) === 0) return undefined;
      return { seq: Number(append.run(event.type, event.at_ms, event.data).lastInsertRowid), ...event };
    });
    this.#settleAnnouncing = (id, receiptId, event, ran) => settling.immediate(id, receiptId, event, ran);
    this.#renew = database.prepare('UPDATE approvals SET run_lease_ms = ? WHERE id = ? AND run_by = ? AND receipt_id IS NULL');
    this.#lapsed = database.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE status = 'approved' AND receipt_id IS NULL AND run_lease_ms <= ? ORDER BY run_lease_ms LIMIT ?`);
    this.#takeOver = database.prepare(
      `UPDATE approvals SET run_by = ?, run_lease_ms = ?
       WHERE id = ? AND status = 'approved' AND receipt_id IS NULL AND run_by = ? AND run_lease_ms = ? AND run_lease_ms <= ? RETURNING ${APPROVAL_COLUMNS}`,
    );
    // approved at an instance that runs calls elsewhere: no run yet, taken by an instance of the request's place
    const unclaimed = "status = 'approved' AND receipt_id IS NULL AND run_lease_ms IS NULL AND run_by IS NULL";
    this.#claim = database.prepare(`UPDATE approvals SET run_by = ?, run_lease_ms = ? WHERE id = ? AND ${unclaimed} AND expires_ms > ? RETURNING ${APPROVAL_COLUMNS}`);
    this.#unclaimed = database.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE ${unclaimed} AND (decided_ms > ? OR (decided_ms = ? AND id > ?)) ORDER BY decided_ms, id LIMIT ?`);
    this.#expireUnclaimed = database.prepare(`UPDATE approvals SET status = 'expired' WHERE id = ? AND ${unclaimed} AND expires_ms <= ? RETURNING ${APPROVAL_COLUMNS}`);
    this.#due = database.prepare(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE status = 'pending' AND expires_ms <= ? ORDER BY expires_ms LIMIT ?`);
    this.#waiting = database.prepare("SELECT count(*) AS count, min(created_ms) AS oldest FROM approvals WHERE status = 'pending' AND expires_ms > ?");
    this.#newest = database.prepare('SELECT created_ms, id FROM approvals ORDER BY created_ms DESC, id DESC LIMIT 1 OFFSET ?');
    // decided, its receipt stored (or the grace past), and too old or beyond the newest max_rows
    this.#prune = database.prepare(
      `DELETE FROM approvals WHERE rowid IN (SELECT rowid FROM approvals
         WHERE status <> 'pending' AND (receipt_id IS NOT NULL OR decided_ms < ?) AND (created_ms < ? OR (created_ms, id) < (?, ?))
         LIMIT ${PRUNE_BATCH})`,
    );
  }

  async prune(policy: RetentionPolicy): Promise<number> {
    return pruneInBatches(() => {
      const now = this.#now();
      // the oldest of the newest max_rows: anything before it is beyond them
      const bound = policy.maxRows === undefined ? undefined : this.#newest.get(policy.maxRows - 1);
      return this.#prune.run(now - APPROVAL_RUN_GRACE_MS, retentionCutoff(policy, now), bound?.created_ms ?? -1, bound?.id ?? '').changes;
    });
  }

  async create(request: NewApproval): Promise<ApprovalRecord> {
    const row = approvalRow(request, this.#now());
    this.#insert.run(...columnValues(row));
    return toApproval(row);
  }

  async file(request: NewApproval): Promise<{ record: ApprovalRecord; filed: boolean }> {
    return this.#file(request);
  }

  async repeated(request: NewApproval): Promise<ApprovalRecord | undefined> {
    const row = this.#repeated.get(request.tokenHash ?? null, callKey(request));
    return row && toApproval(row);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const row = this.#byId.get(id);
    return row && toApproval(row);
  }

  async byTokenHash(tokenHash: string): Promise<ApprovalRecord | undefined> {
    const row = this.#byToken.get(tokenHash);
    return row && toApproval(row);
  }

  async list(query: ApprovalQuery = {}): Promise<ApprovalRecord[]> {
    const { where, values, limit, offset } = approvalFilters(query, 'sqlite');
    // the page's ids first, from a covering index (skipped and hidden rows are index entries only), then those rows whole
    const ids = this.#statement<{ id: string }>(`SELECT id FROM approvals ${where} ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?`).all(...values, limit, offset).map((row) => row.id);
    if (ids.length === 0) return [];
    const rows = this.#statement<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id IN (${ids.map(() => '?').join(', ')})`).all(...ids);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toApproval(row)] : [];
    });
  }

  #statement<Row>(sql: string): Statement<Array<string | number>, Row> {
    let statement = this.#listings.get(sql);
    if (!statement) this.#listings.set(sql, (statement = this.#database.prepare<Array<string | number>, ApprovalRow>(sql)));
    return statement as unknown as Statement<Array<string | number>, Row>;
  }

  async decide(id: string, decision: ApprovalDecision, runner?: ApprovalRunner): Promise<ApprovalRecord | undefined> {
    const now = this.#now();
    const statement = decision.status === 'expired' ? this.#decideAfter : this.#decideBefore;
    const row = statement.get(decision.status, now, decision.by, decision.reason, decision.via, runner?.by ?? null, runner ? now + runner.leaseMs : null, id, now);
    return row && toApproval(row);
  }

  async settle(id: string, receiptId: string, ran?: ApprovalRun): Promise<boolean> {
    return this.#settleRow(id, receiptId, ran) > 0;
  }

  async settleAnnouncing(id: string, receiptId: string, event: NewEvent, ran?: ApprovalRun): Promise<StoredEvent | undefined> {
    return this.#settleAnnouncing(id, receiptId, event, ran);
  }

  /** rows the settling update changed: 0 when another receipt resolved the request first */
  #settleRow(id: string, receiptId: string, ran: ApprovalRun | undefined): number {
    return this.#settle.run(receiptId, ran?.by ?? null, ran ? Date.parse(ran.lease_until) : null, id).changes;
  }

  async renew(id: string, runner: ApprovalRunner): Promise<boolean> {
    return this.#renew.run(this.#now() + runner.leaseMs, id, runner.by).changes > 0;
  }

  async lapsed(limit: number): Promise<ApprovalRecord[]> {
    return this.#lapsed.all(this.#now(), limit).map(toApproval);
  }

  async takeOver(seen: ApprovalRecord, runner: ApprovalRunner): Promise<ApprovalRecord | undefined> {
    if (!seen.run) return undefined;
    const now = this.#now();
    const row = this.#takeOver.get(runner.by, now + runner.leaseMs, seen.id, seen.run.by, Date.parse(seen.run.lease_until), now);
    return row && toApproval(row);
  }

  async claim(id: string, runner: ApprovalRunner): Promise<ApprovalRecord | undefined> {
    const now = this.#now();
    const row = this.#claim.get(runner.by, now + runner.leaseMs, id, now);
    return row && toApproval(row);
  }

  async unclaimed(limit: number, after?: DecisionPosition): Promise<ApprovalRecord[]> {
    // from the start: every decided_ms is at least 0, and every id sorts after ''
    return this.#unclaimed.all(after?.decidedMs ?? -1, after?.decidedMs ?? -1, after?.id ?? '', limit).map(toApproval);
  }

  async expireUnclaimed(id: string): Promise<ApprovalRecord | undefined> {
    const row = this.#expireUnclaimed.get(id, this.#now());
    return row && toApproval(row);
  }

  async pendingCount(caller: string): Promise<number> {
    return this.#database.prepare<[string], { count: number }>("SELECT count(*) AS count FROM approvals WHERE caller = ? AND status = 'pending'").get(caller)!.count;
  }

  async waiting(): Promise<WaitingApprovals> {
    const now = this.#now();
    const row = this.#waiting.get(now)!;
    return row.oldest === null ? { count: row.count } : { count: row.count, oldestAgeMs: Math.max(0, now - row.oldest) };
  }

  async due(limit: number): Promise<ApprovalRecord[]> {
    return this.#due.all(this.#now(), limit).map(toApproval);
  }
}

// a row's values in the order of APPROVAL_COLUMNS
const columnValues = (row: ApprovalRow): unknown[] => APPROVAL_COLUMNS.split(', ').map((column) => row[column as keyof ApprovalRow]);
