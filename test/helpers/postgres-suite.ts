import { describe, inject, it } from 'vitest';
import postgres from 'postgres';

/** The shared test cluster's URL, or why there is none (see postgres-global-setup.ts). */
export function sharedPostgres(): { url: string } | { url: null; reason: string } {
  return inject('postgres');
}

/**
 * `describe` for tests that need PostgreSQL. Without it, the tests fail under CI (where .ci/run installs it) and
 * are skipped elsewhere, with a test name saying plainly that they did not run and why.
 */
export function describeWithPostgres(name: string, body: () => void): void {
  const shared = sharedPostgres();
  if (shared.url !== null) {
    describe(name, body);
    return;
  }
  const reason = shared.reason;
  if (process.env.CI) {
    describe(name, () => {
      it('needs PostgreSQL, which CI must provide', () => {
        throw new Error(`PostgreSQL is required under CI: ${reason}`);
      });
    });
    return;
  }
  describe.skip(`${name} — DID NOT RUN: no PostgreSQL (${reason})`, body);
}

let created = 0;

/** A new empty database in the shared cluster; resolves to its URL and a function that drops it. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const shared = sharedPostgres();
  if (shared.url === null) throw new Error(`no PostgreSQL: ${shared.reason}`);
  const name = `hldp_${process.pid}_${++created}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(shared.url, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = shared.url.replace(/\/[^/]*$/, `/${name}`);
  return {
    url,
    drop: async () => {
      const again = postgres(shared.url, { max: 1, onnotice: () => undefined });
      try {
        await again.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await again.end();
      }
    },
  };
}
