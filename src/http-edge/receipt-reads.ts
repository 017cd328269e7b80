import type { Response } from 'express';

/** How many long receipt texts one principal may be sent at once, and how much such text the gateway holds for all. */
export const RECEIPT_READS = { perPrincipal: 4, maxCharacters: 512 * 1024 * 1024 } as const;

/**
 * The long receipt texts the gateway holds while their clients read them (`GET /v1/receipts/:id`, a page of
 * `GET /v1/receipts`, `GET /v1/approvals/:id` with its receipt): each is held whole until its last slice is written, so
 * a client that reads slowly holds it for as long as it likes. One principal's 60 slow reads of a 6 MB receipt held
 * 320 MB, linearly (review U, U4); of a 96 MB one, ~40 would reach the heap's limit. One count for all three routes:
 * the list route and the approval's were left out of it, and 30 slow reads of `?limit=1` held 260 MB (review X, X3).
 */
export class ReceiptReads {
  readonly #byPrincipal = new Map<string, number>();
  #characters = 0;

  constructor(private readonly limits: { perPrincipal: number; maxCharacters: number } = RECEIPT_READS) {}

  /** Takes a place for `characters` of text sent to `principal`: the release, or why there is none. */
  enter(principal: string, characters: number): { leave: () => void } | { refused: 'principal' | 'gateway' } {
    const held = this.#byPrincipal.get(principal) ?? 0;
    if (held >= this.limits.perPrincipal) return { refused: 'principal' };
    if (this.#characters + characters > this.limits.maxCharacters && this.#characters > 0) return { refused: 'gateway' };
    this.#byPrincipal.set(principal, held + 1);
    this.#characters += characters;
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        this.#characters -= characters;
        const now = (this.#byPrincipal.get(principal) ?? 1) - 1;
        if (now === 0) this.#byPrincipal.delete(principal);
        else this.#byPrincipal.set(principal, now);
      },
    };
  }
}

/**
 * Takes a place in `reads` for `characters` of receipt text about to be sent to `principal` on `route`, given back when
 * the response closes; or answers 429 (this principal has its share) or 503 (the gateway holds all it may) and returns
 * false. Texts shorter than `longFrom` take no place.
 */
export function holdForReader(reads: ReceiptReads, response: Response, principal: string, characters: number, route: string, longFrom: number): boolean {
  if (characters <= longFrom) return true;
  const place = reads.enter(principal, characters);
  if ('refused' in place) {
    response.set('Retry-After', '1');
    if (place.refused === 'principal') response.status(429).json({ code: 'TOO_MANY_READS', error: `principal '${principal}' is already being sent ${RECEIPT_READS.perPrincipal} long receipts (${route}, GET /v1/receipts/:id, GET /v1/approvals/:id count together); read one to its end first` });
    else response.status(503).json({ code: 'RECEIPT_READS_BUSY', error: `the gateway holds as much receipt text for clients still reading it as it may (${route}); ask again after Retry-After` });
    return false;
  }
  response.once('close', place.leave);
  return true;
}
