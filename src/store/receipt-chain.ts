import * as crypto from 'node:crypto';
import type { Receipt } from '../core/index.js';
import { canonicalJson } from './canonical-params.js';
import type { ChainBreak, ChainLink, ChainReport } from './store.js';

/** The `prev_hash` of the first receipt ever stored. */
export const GENESIS: ChainLink = { seq: 0, hash: '0'.repeat(64) };

// the spec's six fields lead, as a human reading a receipt expects them; DESIGN.md keeps them first in the stored text
const LEADING = ['ok', 'tool', 'method', 'output', 'error', 'duration_ms'] as const;

/**
 * The canonical JSON text of a receipt, which is what is stored and hashed: the spec's six fields in the spec's order,
 * then every other field in code-point order of its name; inside values, object keys sorted at every depth; no
 * whitespace; `undefined` members left out. Equal receipts give equal text, whatever order their keys were built in.
 */
export function canonicalReceiptText(receipt: Receipt): string {
  const record = receipt as unknown as Record<string, unknown>;
  const parts: string[] = [];
  const add = (key: string): void => {
    const value = record[key];
    if (value !== undefined && typeof value !== 'function') parts.push(`${JSON.stringify(key)}:${canonicalJson(value)}`);
  };
  for (const key of LEADING) add(key);
  const leading = new Set<string>(LEADING);
  for (const key of Object.keys(record).sort()) if (!leading.has(key)) add(key);
  return `{${parts.join(',')}}`;
}

// the one-shot hash (Node 20.12+) costs about half of a Hash object per receipt, which verify pays a million times
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** `sha256(prev_hash ‖ text)` in hex: the hash of one link. */
export function linkHash(prevHash: string, text: string): string {
  return oneShot ? oneShot('sha256', prevHash + text, 'hex') : crypto.createHash('sha256').update(prevHash).update(text).digest('hex');
}

/** A stored receipt row as the chain sees it. */
export interface ChainRow {
  seq: number;
  prev_hash: string;
  hash: string;
  /** the stored canonical text */
  body: string;
}

/** Links each new receipt after `head`: the rows to insert, and the new head. */
export function chainAfter(head: ChainLink, texts: string[]): { rows: ChainRow[]; head: ChainLink } {
  let { seq, hash } = head;
  const rows = texts.map((body) => {
    const row = { seq: seq + 1, prev_hash: hash, hash: linkHash(hash, body), body };
    seq = row.seq;
    hash = row.hash;
    return row;
  });
  return { rows, head: { seq, hash } };
}

/**
 * Checks rows fed in seq order, from the checkpoint on, and remembers the first broken link.
 * A store feeds it every row of one snapshot, then asks for the report against the recorded head.
 */
export class ChainVerifier {
  #expected: ChainLink;
  #checked = 0;
  #broken: ChainReport['broken'];

  constructor(readonly checkpoint: ChainLink) {
    this.#expected = checkpoint;
  }

  /** false once a broken link is found: the caller may stop reading */
  add(row: ChainRow): boolean {
    if (this.#broken) return false;
    const expectedSeq = this.#expected.seq + 1;
    if (row.seq !== expectedSeq) {
      return this.#break(expectedSeq, 'missing', `receipt seq ${expectedSeq} is missing (the next stored is ${row.seq}): deleted`);
    }
    if (row.prev_hash !== this.#expected.hash) {
      return this.#break(row.seq, 'prev_hash_mismatch', `receipt seq ${row.seq} does not follow seq ${row.seq - 1}: its prev_hash differs from that receipt's hash (reordered, or inserted)`);
    }
    if (linkHash(row.prev_hash, row.body) !== row.hash) {
      return this.#break(row.seq, 'hash_mismatch', `receipt seq ${row.seq} does not hash to its stored hash: its text was edited`);
    }
    this.#checked += 1;
    this.#expected = { seq: row.seq, hash: row.hash };
    return true;
  }

  /** the report, once every row was added; `head` is the head the store recorded with its last write */
  report(head: ChainLink): ChainReport {
    if (!this.#broken) {
      const last = this.#expected;
      if (head.seq > last.seq) this.#break(last.seq + 1, 'missing', `receipts seq ${last.seq + 1} to ${head.seq} are missing (the recorded head is seq ${head.seq}): deleted from the end`);
      else if (head.seq < last.seq) this.#break(head.seq + 1, 'head_mismatch', `receipt seq ${head.seq + 1} lies beyond the recorded head (seq ${head.seq}): added outside the chain`);
      else if (head.hash !== last.hash) this.#break(head.seq, 'head_mismatch', `receipt seq ${head.seq} differs from the recorded head: the end of the chain was rewritten`);
    }
    return { ok: !this.#broken, checked: this.#checked, checkpoint: this.checkpoint, head, ...(this.#broken ? { broken: this.#broken } : {}) };
  }

  #break(seq: number, reason: ChainBreak, message: string): false {
    this.#broken ??= { seq, reason, message };
    return false;
  }
}
