import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Bus payloads carry an HMAC-SHA256, with a key only the deployment's instances hold, over their exact text: PostgreSQL
 * checks no privilege for NOTIFY, so any role that may connect to the database could otherwise speak for an instance
 * (review S, S5). The payload is the JSON `{"topic","message","at","nonce"}` with `,"sig":"<64 hex>"` written before its
 * closing brace; the signature covers that JSON as written (no re-serialisation to agree on), and a brush-holder from
 * before signing, which reads `topic` and `message` and ignores the rest, still understands it.
 */

/** How far a payload's `at` may be from the receiver's clock, either way; a payload seen once is refused within it. */
export const BUS_WINDOW_MS = 120_000;

const SIGNATURE = /,"sig":"([0-9a-f]{64})"\}$/;
/** a UTF-16 surrogate not part of a pair: UTF-8 would write it as U+FFFD, so two texts could share one signature */
const LONE_SURROGATE = /\p{Cs}/u;

/** A verified message, or why a payload was refused. */
export type BusVerdict = { topic: string; message: Record<string, unknown> } | { refused: 'unsigned' | 'bad signature' | 'malformed' | 'stale' | 'replayed' };

/** The payload of `message` on `topic`, signed with `key`, stamped with `at` (ms since the epoch) and a random nonce. */
export function signBusPayload(key: Buffer, topic: string, message: Record<string, unknown>, at: number, nonce = randomBytes(16).toString('base64url')): string {
  const body = JSON.stringify({ topic, message, at, nonce });
  return `${body.slice(0, -1)},"sig":"${mac(key, body).toString('hex')}"}`;
}

/** Checks payloads against one key; remembers the nonces it accepted while their `at` is within the window. */
export class BusVerifier {
  readonly #key: Buffer;
  readonly #windowMs: number;
  /** nonce → when it can be forgotten (its `at` plus the window), in the order accepted */
  readonly #seen = new Map<string, number>();

  constructor(key: Buffer, windowMs = BUS_WINDOW_MS) {
    this.#key = key;
    this.#windowMs = windowMs;
  }

  verify(payload: string, now: number): BusVerdict {
    const signed = SIGNATURE.exec(payload);
    if (!signed) return { refused: 'unsigned' };
    const body = `${payload.slice(0, signed.index)}}`;
    if (LONE_SURROGATE.test(body)) return { refused: 'malformed' };
    if (!timingSafeEqual(Buffer.from(signed[1]!, 'hex'), mac(this.#key, body))) return { refused: 'bad signature' };
    let parsed: { topic?: unknown; message?: unknown; at?: unknown; nonce?: unknown };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      return { refused: 'malformed' };
    }
    const { topic, message, at, nonce } = parsed;
    if (typeof topic !== 'string' || typeof message !== 'object' || message === null || Array.isArray(message) || typeof at !== 'number' || typeof nonce !== 'string') {
      return { refused: 'malformed' };
    }
    if (Math.abs(now - at) > this.#windowMs) return { refused: 'stale' };
    this.#forget(now);
    if (this.#seen.has(nonce)) return { refused: 'replayed' };
    this.#seen.set(nonce, at + this.#windowMs);
    return { topic, message: message as Record<string, unknown> };
  }

  /** nonces whose payloads are stale by now; those accepted first go first (a later one, stamped earlier, waits its turn) */
  #forget(now: number): void {
    for (const [nonce, until] of this.#seen) {
      if (until >= now) return;
      this.#seen.delete(nonce);
    }
  }
}

function mac(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body, 'utf8').digest();
}
