import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUS_WINDOW_MS, BusVerifier, signBusPayload } from '../../src/store/postgres/bus-signature.js';
import { runs } from '../helpers/property-runs.js';

// The PostgreSQL bus reads payloads any role that may connect can send (NOTIFY checks no privilege): the verifier
// must deliver exactly what an instance signed, once, and nothing else (review S, S5).

const key = randomBytes(32);
const NOW = Date.parse('2026-12-04T20:00:00.000Z');
const topic = fc.string({ maxLength: 20 });
// what JSON carries through unchanged: the bus's messages are JSON objects
const message = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 })).map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>);
const skew = fc.integer({ min: -BUS_WINDOW_MS, max: BUS_WINDOW_MS });
const nonce = fc.string({ minLength: 1, maxLength: 24 });
/** any character, a lone surrogate among them */
const character = fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)), fc.constantFrom('0', 'a', 'f', 'A', '"', '}', ',', '\\'));

describe('the bus payload verifier', () => {
  it('delivers any payload signed with its key exactly as sent, once', () => {
    fc.assert(
      fc.property(topic, message, skew, nonce, (topicName, sent, offset, once) => {
        const verifier = new BusVerifier(key);
        const payload = signBusPayload(key, topicName, sent, NOW + offset, once);
        expect(verifier.verify(payload, NOW)).toEqual({ topic: topicName, message: sent });
        expect(verifier.verify(payload, NOW)).toEqual({ refused: 'replayed' });
      }),
      { numRuns: runs(500) },
    );
  });

  it('drops a signed payload with any one character changed, added or removed', () => {
    fc.assert(
      fc.property(topic, message, nonce, fc.nat(), character, fc.constantFrom('replace', 'insert', 'delete'), (topicName, sent, once, at, replacement, edit) => {
        const payload = signBusPayload(key, topicName, sent, NOW, once);
        const index = at % payload.length;
        const start = payload.slice(0, index);
        const rest = payload.slice(index + (edit === 'insert' ? 0 : 1));
        const tampered = edit === 'delete' ? start + rest : start + replacement + rest;
        fc.pre(tampered !== payload);
        expect(new BusVerifier(key).verify(tampered, NOW)).toHaveProperty('refused');
      }),
      { numRuns: runs(2000) },
    );
    // the two changes random text rarely makes: U+FFFD swapped for a lone surrogate (both are EF BF BD in UTF-8), and a
    // signature's hex digit in upper case (the same bytes)
    const payload = signBusPayload(key, 'mcp_session_closed', { id: 'a\uFFFDb' }, NOW);
    expect(new BusVerifier(key).verify(payload.replace('\uFFFD', '\uD800'), NOW)).toEqual({ refused: 'malformed' });
    const upper = payload.replace(/"sig":"([0-9a-f]+)"/, (_whole, hex: string) => `"sig":"${hex.replace(/[a-f]/, (digit) => digit.toUpperCase())}"`);
    expect(upper).not.toBe(payload);
    expect(new BusVerifier(key).verify(upper, NOW)).toEqual({ refused: 'unsigned' });
  });

  it('drops any text that was not signed with its key', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json()), fc.string({ maxLength: 70 }), (text, tail) => {
        const verifier = new BusVerifier(key);
        expect(verifier.verify(text, NOW)).toHaveProperty('refused');
        expect(verifier.verify(`${text}${tail}`, NOW)).toHaveProperty('refused');
      }),
    );
    // signed by another key: a deployment's instances do not take each other's messages
    expect(new BusVerifier(key).verify(signBusPayload(randomBytes(32), 'rescan', { reason: 'x' }, NOW), NOW)).toEqual({ refused: 'bad signature' });
    // an old brush-holder's payload, unsigned
    expect(new BusVerifier(key).verify(JSON.stringify({ topic: 'rescan', message: { origin: 'x', reason: 'injected' } }), NOW)).toEqual({ refused: 'unsigned' });
  });

  it('drops a signed payload stamped outside its window, either way', () => {
    fc.assert(
      fc.property(message, fc.integer({ min: BUS_WINDOW_MS + 1, max: 10 * BUS_WINDOW_MS }), fc.boolean(), (sent, offset, late) => {
        const payload = signBusPayload(key, 'rescan', sent, late ? NOW - offset : NOW + offset);
        expect(new BusVerifier(key).verify(payload, NOW)).toEqual({ refused: 'stale' });
      }),
    );
  });

  it('still refuses a replay once older nonces are forgotten, for as long as the payload is in its window', () => {
    const verifier = new BusVerifier(key);
    const replayed = signBusPayload(key, 'events', { last: 1 }, NOW);
    expect(verifier.verify(replayed, NOW)).toEqual({ topic: 'events', message: { last: 1 } });
    for (let step = 1; step <= 20; step++) {
      const later = NOW + step * (BUS_WINDOW_MS / 10);
      expect(verifier.verify(signBusPayload(key, 'events', { last: step + 1 }, later), later)).toHaveProperty('topic', 'events');
      expect(verifier.verify(replayed, later)).toEqual({ refused: later - NOW > BUS_WINDOW_MS ? 'stale' : 'replayed' });
    }
  });
});
