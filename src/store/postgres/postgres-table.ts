import type { Database } from './database.js';

/**
 * What each PostgreSQL table's store is made of: the pool, and the gateway's clock, whose time every query that needs
 * one is given as a parameter (never SQL `now()`, so that tests can move it and instances agree with their receipts).
 */
export abstract class PostgresTable {
  protected readonly sql: Database;
  protected readonly now: () => number;

  constructor(sql: Database, options: { now: () => number }) {
    this.sql = sql;
    this.now = options.now;
  }
}
