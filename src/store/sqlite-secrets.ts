import type { Database, Statement } from 'better-sqlite3';
import type { DeploymentSecrets } from './store.js';

/** Deployment secrets in the `deployment_secrets` table: the first insert wins, later ones are ignored. */
export class SqliteDeploymentSecrets implements DeploymentSecrets {
  readonly #insert: Statement<[string, string, number]>;
  readonly #get: Statement<[string], { value: string }>;
  readonly #now: () => number;

  constructor(database: Database, options: { now: () => number }) {
    this.#insert = database.prepare('INSERT OR IGNORE INTO deployment_secrets (name, value, created_ms) VALUES (?, ?, ?)');
    this.#get = database.prepare('SELECT value FROM deployment_secrets WHERE name = ?');
    this.#now = options.now;
  }

  async getOrCreate(name: string, make: () => string): Promise<string> {
    const kept = this.#get.get(name);
    if (kept) return kept.value;
    this.#insert.run(name, make(), this.#now());
    return this.#get.get(name)!.value;
  }
}
