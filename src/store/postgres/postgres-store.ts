import { ReceiptWriterThread, writerThreadAvailable } from '../receipt-writer-thread.js';
import type { Store } from '../store.js';
import { StoreError } from '../store-error.js';
import { connect, type ConnectOptions } from './database.js';
import { DatabaseClock, readDatabaseClock } from './database-clock.js';
import { describeUrl } from './describe-url.js';
import { permissionHint, type ConnectedAs } from './permission-hint.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './postgres-migrations.js';
import { PostgresBus, type BusWarn } from './postgres-bus.js';
import { PostgresEventLog } from './postgres-events.js';
import { PostgresApprovalStore } from './postgres-approvals.js';
import { PostgresMcpSessionStore } from './postgres-mcp-sessions.js';
import { PostgresAgentSessionStore } from './postgres-agent-sessions.js';
import { PostgresReceiptStore } from './postgres-receipts.js';
import { PostgresRejectionStore } from './postgres-rejections.js';
import { PostgresDeploymentSecrets } from './postgres-secrets.js';
import { PostgresSignOuts } from './postgres-sign-outs.js';
import { PostgresInstances } from './postgres-instances.js';
import { PostgresUsageLog } from './postgres-usage.js';

/** Where and how the shared store keeps its data. */
export interface PostgresStoreOptions extends ConnectOptions {
  /** the clock in ms since the epoch, passed to every query that needs the time (never SQL now()); injectable for tests */
  now?: () => number;
  /** where the bus reports payloads it dropped (rate-limited); unset, it says nothing */
  warn?: BusWarn;
}

const HEALTH_TIMEOUT_MS = 2000;
/** how often the database's clock is read again: a step of its clock (or a drift of ours) is followed within it */
const RESYNC_MS = 60_000;

/** Connects to PostgreSQL and brings its schema forward (safe when several instances start at once); throws `StoreError` if it cannot. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const sql = connect(options);
  // the database's clock, read at open (a clock the caller gives is taken as it is): what one instance writes
  // (an approval's lease and expiry, a bus message's time, its row in the roll of live instances) every other judges,
  // and by each one's own clock an instance whose host ran 45 s ahead read a 30 s lease another had just taken as
  // lapsed, and closed the request as interrupted while it ran (fc25, test/policy/approval-clock-skew)
  // It runs on the monotonic clock from the last reading, not on the host's wall clock, and is read again each minute:
  // a host clock stepped after the open (NTP, a VM resumed) moved the store's time with it, and a gateway started in
  // step with its database and then stepped 45 s ahead refused fresh approvals as expired (lead21)
  const clock = new DatabaseClock();
  const now = options.now ?? ((): number => clock.now());
  let who: ConnectedAs | undefined;
  let applied: number[];
  try {
    const [{ encoding, role, database }] = (await sql`SELECT current_setting('server_encoding') AS encoding, current_user AS role, current_database() AS database`) as unknown as [{ encoding: string } & ConnectedAs];
    who = { role, database };
    // the chain hashes the text as this process sent it: the database must keep every character as sent
    if (encoding !== 'UTF8') throw new Error(`the database's encoding is ${encoding}; create it with ENCODING 'UTF8'`);
    if (!options.now) clock.set(await readDatabaseClock(sql));
    applied = await migratePostgres(sql, now);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw new StoreError(`cannot open the PostgreSQL store at ${describeUrl(options.url)}: ${(error as Error).message}${permissionHint(error, who) ?? ''}`);
  }
  // large receipts are written and read by a thread of their own, on a connection of its own
  const thread = writerThreadAvailable() ? new ReceiptWriterThread({ postgres: { url: options.url, ...(options.connectTimeoutSeconds !== undefined ? { connectTimeoutSeconds: options.connectTimeoutSeconds } : {}) } }) : undefined;
  const receipts = new PostgresReceiptStore(sql, { now, ...(thread ? { thread } : {}) });
  const secrets = new PostgresDeploymentSecrets(sql, { now });
  const bus = new PostgresBus(sql, secrets, { now, ...(options.warn ? { warn: options.warn } : {}) });
  const events = new PostgresEventLog(sql);
  const resync = options.now ? undefined : setInterval(() => {
    readDatabaseClock(sql).then((reading) => clock.set(reading), () => undefined); // unreachable now: the last reading's clock goes on
  }, RESYNC_MS).unref();
  return {
    kind: 'postgres',
    now,
    schemaSteps: POSTGRES_MIGRATIONS.filter((migration) => applied.includes(migration.version)).map(({ version, name }) => ({ version, name })),
    receipts,
    approvals: new PostgresApprovalStore(sql, { now }),
    rejections: new PostgresRejectionStore(sql, { now }),
    mcpSessions: new PostgresMcpSessionStore(sql, { now }),
    agentSessions: new PostgresAgentSessionStore(sql),
    usage: new PostgresUsageLog(sql),
    bus,
    events,
    secrets,
    signOuts: new PostgresSignOuts(sql, { now }),
    instances: new PostgresInstances(sql, { now }),
    health: async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from ${describeUrl(options.url)} within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
      });
      try {
        await Promise.race([sql`SELECT 1`, timeout]);
        return { ok: true };
      } catch (error) {
        return { ok: false, error: (error as Error).message };
      } finally {
        clearTimeout(timer);
      }
    },
    close: async () => {
      clearInterval(resync);
      await receipts.close();
      await events.flush();
      await bus.close();
      await sql.end({ timeout: 5 });
    },
  };
}
