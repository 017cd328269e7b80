// The receipt writer thread (see receipt-writer-thread.ts): its own connection to the store's SQLite file, on which it
// makes large receipts' canonical text, links them into the chain and inserts them, off the gateway's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { Receipt } from '../core/index.js';
import { receiptAppender } from './receipt-append.js';
import { canonicalReceiptText } from './receipt-chain.js';
import type { WriterReply, WriterRequest } from './receipt-writer-thread.js';

const { path } = workerData as { path: string };
let append: ReturnType<typeof receiptAppender> | undefined;
let database: BetterSqlite3.Database | undefined;

function opened(): ReturnType<typeof receiptAppender> {
  if (append) return append;
  database = new BetterSqlite3(path, { fileMustExist: true });
  // the same durability and patience as the store's own connection (sqlite-store.ts); the file is in WAL mode already
  database.pragma('synchronous = FULL');
  database.pragma('busy_timeout = 5000');
  append = receiptAppender(database);
  return append;
}

parentPort!.on('message', (request: WriterRequest) => {
  if (request.close) {
    database?.close();
    parentPort!.close();
    return;
  }
  let reply: WriterReply;
  try {
    // each text before the transaction: the chain's lock is held only to link and insert
    const batch = request.batch.map((item) => ({ ...item, text: item.text ?? canonicalReceiptText(item.receipt as Receipt) }));
    const outcome = opened()(batch);
    reply = { id: request.id, refused: outcome.map((error) => (error ? { message: error.message, code: (error as { code?: string }).code } : null)) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
