// The receipt writer thread (see receipt-writer-thread.ts): its own connection to the store's SQLite file, on which it
// makes large receipts' canonical text, links them into the chain and inserts them, off the gateway's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { Receipt } from '../core/index.js';
import { receiptAppender } from './receipt-append.js';
import { canonicalReceiptText } from './receipt-chain.js';
import type { WriterReply, WriterRequest } from './receipt-writer-thread.js';

const { path } = workerData as { path: string };
let connection: { database: BetterSqlite3.Database; append: ReturnType<typeof receiptAppender> } | undefined;

function opened(): { database: BetterSqlite3.Database; append: ReturnType<typeof receiptAppender> } {
  if (connection) return connection;
  const database = new BetterSqlite3(path, { fileMustExist: true });
  // the same durability and patience as the store's own connection (sqlite-store.ts); the file is in WAL mode already
  database.pragma('synchronous = FULL');
  database.pragma('busy_timeout = 5000');
  connection = { database, append: receiptAppender(database) };
  return connection;
}

parentPort!.on('message', (request: WriterRequest) => {
  if (request.close) {
    connection?.database.close();
    parentPort!.close();
    return;
  }
  let reply: WriterReply;
  if (request.read !== undefined) {
    try {
      const row = opened().database.prepare<[string], { body: Buffer }>('SELECT CAST(body AS BLOB) AS body FROM receipts WHERE id = ?').get(request.read);
      const text = row === undefined ? null : new Uint8Array(row.body.buffer, row.body.byteOffset, row.body.byteLength);
      // handed over, not copied, when the bytes are an ArrayBuffer of their own
      const whole = text !== null && text.byteOffset === 0 && text.byteLength === text.buffer.byteLength;
      parentPort!.postMessage({ id: request.id, text } satisfies WriterReply, whole ? [text.buffer as ArrayBuffer] : []);
    } catch (error) {
      parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies WriterReply);
    }
    return;
  }
  try {
    // each text before the transaction: the chain's lock is held only to link and insert
    const batch = request.batch.map((item) => ({ ...item, text: item.text ?? canonicalReceiptText(item.receipt as Receipt) }));
    const outcome = opened().append(batch);
    reply = { id: request.id, refused: outcome.map((error) => (error ? { message: error.message, code: (error as { code?: string }).code } : null)) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
