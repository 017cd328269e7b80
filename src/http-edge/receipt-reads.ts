import { AsyncLocalStorage } from 'node:async_hooks';
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

// one count per gateway, whichever door sends the text: the API's routes, the console's raw field, `approval_wait` over a
// session or MCP. The console's raw route and approval_wait were outside the count, and one agent held 40 × 16 MB
// through them (review Z8, Z8-8)
const perGateway = new WeakMap<object, ReceiptReads>();

/** The one count of long receipt texts held for slow readers of `gateway`, every route that sends stored text sharing it. */
export function receiptReadsOf(gateway: object): ReceiptReads {
  let reads = perGateway.get(gateway);
  if (!reads) perGateway.set(gateway, (reads = new ReceiptReads()));
  return reads;
}

// the HTTP response an answer computed deeper down (a meta-tool's, over a session route or MCP) is written to
const answering = new AsyncLocalStorage<Response>();

/** Runs `work` with `response` as the answer it computes is written to, so that a place it takes is given back when that closes. */
export function whileAnswering<T>(response: Response, work: () => T): T {
  return answering.run(response, work);
}

/**
 * Takes a place for `characters` of receipt text sent to `principal` from code that has no response at hand (a
 * meta-tool's answer): given back when the response being answered (see `whileAnswering`) closes, or at once when
 * there is none (stdio MCP: one local client). Texts up to `longFrom` take no place. The refusal's words, or undefined.
 */
export function holdForAnswer(reads: ReceiptReads, principal: string, characters: number, route: string, longFrom: number): { code: 'TOO_MANY_READS' | 'RECEIPT_READS_BUSY'; message: string } | undefined {
  if (characters <= longFrom) return undefined;
  const place = reads.enter(principal, characters);
  if ('refused' in place) return refusal(place.refused, principal, route);
  const response = answering.getStore();
  if (response && !response.destroyed && !response.writableFinished) response.once('close', place.leave);
  else place.leave();
  return undefined;
}

function refusal(why: 'principal' | 'gateway', principal: string, route: string): { code: 'TOO_MANY_READS' | 'RECEIPT_READS_BUSY'; message: string } {
  return why === 'principal'
    ? { code: 'TOO_MANY_READS', message: `principal '${principal}' is already being sent ${RECEIPT_READS.perPrincipal} long receipts (${route}, GET /v1/receipts/:id, GET /v1/approvals/:id, the console's raw fields and approval_wait count together); read one to its end first` }
    : { code: 'RECEIPT_READS_BUSY', message: `the gateway holds as much receipt text for clients still reading it as it may (${route}); ask again after Retry-After` };
}

/**
 * Takes a place in `reads` for `characters` of receipt text about to be sent to `principal` on `route`, given back when
 * the response closes; or answers 429 (this principal has its share) or 503 (the gateway holds all it may) and returns
 * false (in JSON, or as plain text when `text`). Texts shorter than `longFrom` take no place.
 */
export function holdForReader(reads: ReceiptReads, response: Response, principal: string, characters: number, route: string, longFrom: number, text = false): boolean {
  if (characters <= longFrom) return true;
  const place = reads.enter(principal, characters);
  if ('refused' in place) {
    const { code, message } = refusal(place.refused, principal, route);
    response.set('Retry-After', '1').status(code === 'TOO_MANY_READS' ? 429 : 503);
    if (text) response.type('text/plain; charset=utf-8').send(`${code}: ${message}\n`);
    else response.json({ code, error: message });
    return false;
  }
  response.once('close', place.leave);
  return true;
}
