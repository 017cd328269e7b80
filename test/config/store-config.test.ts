import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { configFiles } from './support.js';

const configFile = configFiles();

describe('loadConfig of the store and retention', () => {
  it('reads store.url, pool_max and receipts.retention from the file, HLDP_STORE_URL winning', async () => {
    const file = await configFile('store: { url: "postgres://a:b@db:5432/hldp", pool_max: 4 }\nreceipts: { retention: { days: 30, max_rows: 1000000 } }\n');
    expect(loadConfig({ file, env: {} })).toMatchObject({ store: { url: 'postgres://a:b@db:5432/hldp', poolMax: 4 }, receiptsRetention: { days: 30, maxRows: 1_000_000, intervalMs: 3_600_000 } });
    expect(loadConfig({ file, env: { HLDP_STORE_URL: 'postgresql://other/hldp' } }).store.url).toBe('postgresql://other/hldp');
  });

  it('uses the SQLite file and keeps every receipt, approval request and rejected call by default', () => {
    const config = loadConfig({ env: {} });
    expect(config.store).toEqual({ poolMax: 10 });
    expect(config.receiptsRetention).toBeUndefined();
    expect(config.approvalsRetention).toBeUndefined();
    expect(config.rejectionsRetention).toBeUndefined();
  });

  it('reads approvals.retention and rejections.retention like receipts.retention', async () => {
    const file = await configFile('approvals: { retention: { days: 90 } }\nrejections: { retention: { max_rows: 5000, interval_ms: 60000 } }\n');
    expect(loadConfig({ file, env: {} })).toMatchObject({ approvalsRetention: { days: 90, intervalMs: 3_600_000 }, rejectionsRetention: { maxRows: 5000, intervalMs: 60_000 } });
  });

  it.each([
    ['a store url of another scheme', 'store: { url: "mysql://db/hldp" }\n', /store\/url|url.*postgres/],
    ['retention of zero days', 'receipts: { retention: { days: 0 } }\n', /days/],
    ['an unknown retention key', 'receipts: { retention: { rows: 5 } }\n', /rows/],
    ['approvals kept for zero days', 'approvals: { retention: { days: 0 } }\n', /days/],
    ['rejected calls kept to zero rows', 'rejections: { retention: { max_rows: 0 } }\n', /max_rows/],
    ['a pruning pass more often than each second', 'rejections: { retention: { max_rows: 5, interval_ms: 10 } }\n', /interval_ms/],
  ])('stops with file:line:col for %s', async (_case, text, reason) => {
    const file = await configFile(text);
    expect(() => loadConfig({ file, env: {} })).toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1:\\d+: .*`));
    expect(() => loadConfig({ file, env: {} })).toThrow(reason);
  });

  it('refuses an HLDP_STORE_URL that is not a postgres URL, saying what to give', () => {
    expect(() => loadConfig({ env: { HLDP_STORE_URL: '/var/lib/hldp.db' } })).toThrow(/HLDP_STORE_URL: must be a postgres:\/\/ \(or postgresql:\/\/\) URL/);
  });
});
