// The receipt writer thread (see receipt-writer-thread.ts): its own connection to the store (a SQLite file, or a
// PostgreSQL database), on which it makes large receipts' canonical text, links them into the chain and inserts them,
// and reads large ones back, off the gateway's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import type { Receipt } from '../core/index.js';
import { heldForTest } from './held-for-test.js';
import { canonicalReceiptText } from './receipt-chain.js';
import { excerptOf, rawFieldOf } from './receipt-summary.js';
import type { ViewRequest, WalkerStart, WriterConnection, WriterReply, WriterRequest } from './receipt-writer-thread.js';

const target = workerData as WalkerStart;
let connection: Promise<WriterConnection> | undefined;

// each store's driver loaded only by a thread for that store: a SQLite gateway's thread never loads PostgreSQL's
async function open(): Promise<WriterConnection> {
  if (target.postgres) return (await import('./postgres/receipt-writer-postgres.js')).postgresWriter(target.postgres);
  return (await import('./receipt-writer-sqlite.js')).sqliteWriter(target.sqlite);
}

// a connection that could not be opened is tried again at the next request, as the store's own would be
const opened = (): Promise<WriterConnection> =>
  (connection ??= open().catch((error: unknown) => {
    connection = undefined;
    throw error;
  }));

async function answer(request: Exclude<WriterRequest, { close: true }>): Promise<void> {
  if (request.batch === undefined) heldForTest(request.read !== undefined ? 'read' : request.view !== undefined ? 'view' : 'page');
  if (request.read !== undefined) {
    const text = await (await opened()).read(request.read);
    // handed over, not copied, when the bytes are an ArrayBuffer of their own
    const whole = text !== null && text.byteOffset === 0 && text.byteLength === text.buffer.byteLength;
    parentPort!.postMessage({ id: request.id, text } satisfies WriterReply, whole ? [text.buffer as ArrayBuffer] : []);
    return;
  }
  if (request.view !== undefined) {
    const value = await viewed(await opened(), request.view);
    // a field's bytes are handed over, not copied (they are an ArrayBuffer of their own)
    parentPort!.postMessage({ id: request.id, value } satisfies WriterReply, value instanceof Uint8Array ? [value.buffer as ArrayBuffer] : []);
    return;
  }
  if (request.page !== undefined) {
    const connection = await opened();
    if (!connection.page) throw new Error('this store reads its pages on its own connection');
    parentPort!.postMessage({ id: request.id, page: connection.page(request.page) } satisfies WriterReply);
    return;
  }
  // each text before the append: the chain's lock is held only to link and insert
  const batch = request.batch.map((item) => ({ ...item, text: item.text ?? canonicalReceiptText(item.receipt as Receipt) }));
  const outcome = await (await opened()).append(batch);
  parentPort!.postMessage({ id: request.id, refused: outcome.map((error) => (error ? { message: error.message, code: (error as { code?: string }).code } : null)) } satisfies WriterReply);
}

// what a view of calls asks: read, and parsed, here rather than on the gateway's event loop
async function viewed(connection: WriterConnection, request: ViewRequest): Promise<unknown> {
  if ('matches' in request) {
    if (!connection.matches) throw new Error('this store reads its matches on its own connection');
    return connection.matches(request.matches);
  }
  if ('summaries' in request || 'search' in request) {
    if (!connection.summaries || !connection.search) throw new Error('this store reads its summaries on its own connection');
    return 'summaries' in request ? connection.summaries(request.summaries) : connection.search(request.search);
  }
  const { receipt } = 'excerpt' in request ? request.excerpt : request.field;
  const text = await connection.text(receipt);
  if (text === null) return null;
  return 'excerpt' in request ? excerptOf(text, request.excerpt.chars) : rawFieldOf(text, request.field.name);
}

// a thread started for one walk of the chain (receipt-writer-thread.ts walk()) walks it, answers, and ends: it never
// writes, and a long walk holds up no write
async function walk(): Promise<void> {
  try {
    heldForTest('walk');
    const report = target.postgres
      ? await (await import('./postgres/postgres-chain-walk.js')).walkPostgresDatabase(target.postgres)
      : await (await import('./sqlite-chain-walk.js')).walkSqliteFile(target.sqlite);
    parentPort!.postMessage({ report });
  } catch (error) {
    parentPort!.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
}

// one request at a time, in the order sent: a batch is stored before the next is linked, and close comes last
let queue = Promise.resolve();
function received(request: WriterRequest): void {
  queue = queue.then(async () => {
    if (request.close) {
      // a connection that fails to close is let go with the thread: there is nobody left to tell
      await connection?.then((opened) => opened.close()).catch(() => undefined);
      parentPort!.close();
      return;
    }
    try {
      await answer(request);
    } catch (error) {
      parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies WriterReply);
    }
  });
}

if (target.walk) await walk();
else parentPort!.on('message', received);
