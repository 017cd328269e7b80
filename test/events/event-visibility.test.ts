import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, eventVisibleTo, type EventType, type HldpEvent } from '../../src/events/index.js';

const event = (type: EventType, data: Record<string, unknown> = {}): HldpEvent => ({ id: 1, type, at: '2026-12-01T00:00:00.000Z', data });
const agent = { name: 'carol', roles: new Set(['agent']) };

describe('eventVisibleTo', () => {
  it('lets an admin see every event, whoever called', () => {
    const viewer = { name: 'root', roles: new Set(['admin']) };
    for (const type of EVENT_TYPES) {
      expect(eventVisibleTo(viewer, event(type, { caller: 'someone-else' }))).toBe(true);
      expect(eventVisibleTo(viewer, event(type))).toBe(true);
    }
  });

  it('lets an approver see every event but definitions.broken, whoever called', () => {
    const viewer = { name: 'vera', roles: new Set(['approver']) };
    for (const type of EVENT_TYPES) {
      expect(eventVisibleTo(viewer, event(type, { caller: 'someone-else' }))).toBe(type !== 'definitions.broken');
      expect(eventVisibleTo(viewer, event(type))).toBe(type !== 'definitions.broken');
    }
  });

  it.each(['receipt.stored', 'call.rejected', 'approval.requested', 'approval.resolved'] as const)('shows an agent %s of its own calls only, and none that names no caller', (type) => {
    expect(eventVisibleTo(agent, event(type, { caller: 'carol' }))).toBe(true);
    expect(eventVisibleTo(agent, event(type, { caller: 'dave' }))).toBe(false);
    expect(eventVisibleTo(agent, event(type))).toBe(false);
    expect(eventVisibleTo({ name: 'trusted-one', roles: new Set(['agent', 'trusted']) }, event(type, { caller: 'carol' }))).toBe(false);
  });

  it.each(['scan.completed', 'scan.failed'] as const)('shows everyone %s: the registry every tool list is made from', (type) => {
    expect(eventVisibleTo(agent, event(type))).toBe(true);
    expect(eventVisibleTo({ name: 'nobody', roles: new Set() }, event(type))).toBe(true);
  });

  it('shows definitions.broken, which names each broken file and its errors, to no one but an admin', () => {
    expect(eventVisibleTo(agent, event('definitions.broken'))).toBe(false);
    expect(eventVisibleTo({ name: 'trusted-one', roles: new Set(['agent', 'trusted']) }, event('definitions.broken'))).toBe(false);
    expect(eventVisibleTo({ name: 'nobody', roles: new Set() }, event('definitions.broken'))).toBe(false);
  });
});
