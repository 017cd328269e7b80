/** How many long receipt texts one principal may be sent at once, and how much such text the gateway holds for all. */
export const RECEIPT_READS = { perPrincipal: 4, maxCharacters: 512 * 1024 * 1024 } as const;

/**
 * The long receipt texts `GET /v1/receipts/:id` holds while their clients read them: each is held whole until its last
 * slice is written, so a client that reads slowly holds it for as long as it likes. One principal's 60 slow reads of a
 * 6 MB receipt held 320 MB, linearly (review U, U4); of a 96 MB one, ~40 would reach the heap's limit.
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
