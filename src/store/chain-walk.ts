import { ChainVerifier, GENESIS, type ChainRow } from './receipt-chain.js';
import { fitInBytes } from './receipt-rows.js';
import type { ChainLink, ChainReport } from './store.js';

/**
 * How much one page of a chain walk reads at most: rows, and bytes of stored text (a row larger than that comes alone).
 * By rows alone, one page of 5,000 receipts of 1 MB each was 5 GB read and hashed in one go.
 */
export const WALK_PAGE = { rows: 5000, bytes: 8 * 1024 * 1024 } as const;

/** What a chain walk reads, every read inside the one snapshot its source holds. */
export interface ChainSource {
  /** the last retention checkpoint, undefined when there is none (the chain starts at genesis) */
  checkpoint(): Promise<ChainLink | undefined>;
  /** the recorded head, undefined when nothing was ever stored */
  head(): Promise<ChainLink | undefined>;
  /** the seq and stored size in bytes of at most `limit` rows after `after`, in seq order (their sizes, not their text) */
  sizesAfter(after: number, limit: number): Promise<Array<{ seq: number; bytes: number }>>;
  /** the rows after `after` up to `last` included, in seq order */
  rowsThrough(after: number, last: number): Promise<ChainRow[]>;
}

/**
 * Walks the chain from its checkpoint to its recorded head, a page at a time bounded in rows and in bytes (the sizes
 * of the next rows first, then the text of those that fit), and names the first broken link. `pause` runs between pages
 * (a walk on a server's own thread lets other work in there).
 */
export async function walkChain(source: ChainSource, options: { pause?: () => Promise<void>; page?: { rows: number; bytes: number } } = {}): Promise<ChainReport> {
  const page = options.page ?? WALK_PAGE;
  const checkpoint = (await source.checkpoint()) ?? GENESIS;
  const head = (await source.head()) ?? GENESIS;
  const verifier = new ChainVerifier(checkpoint);
  for (let after = checkpoint.seq; ; ) {
    const sizes = await source.sizesAfter(after, page.rows);
    if (sizes.length === 0) break;
    const { taken } = fitInBytes(sizes.map((row) => row.bytes), sizes.length, page.bytes);
    const last = sizes[taken - 1]!.seq;
    for (const row of await source.rowsThrough(after, last)) if (!verifier.add(row)) return verifier.report(head);
    after = last;
    await options.pause?.();
  }
  return verifier.report(head);
}
