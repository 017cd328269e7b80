import type { DeploymentSecrets } from '../store.js';
import type { Database } from './database.js';

/** Deployment secrets in the `deployment_secrets` table: the first insert wins (ON CONFLICT DO NOTHING), every instance reads it. */
export class PostgresDeploymentSecrets implements DeploymentSecrets {
  readonly #sql: Database;
  readonly #now: () => number;

  constructor(sql: Database, options: { now: () => number }) {
    this.#sql = sql;
    this.#now = options.now;
  }

  async getOrCreate(name: string, make: () => string): Promise<string> {
    const kept = await this.#sql<Array<{ value: string }>>`SELECT value FROM deployment_secrets WHERE name = ${name}`;
    if (kept[0]) return kept[0].value;
    await this.#sql`INSERT INTO deployment_secrets (name, value, created_ms) VALUES (${name}, ${make()}, ${this.#now()}) ON CONFLICT (name) DO NOTHING`;
    const [row] = await this.#sql<Array<{ value: string }>>`SELECT value FROM deployment_secrets WHERE name = ${name}`;
    return row!.value;
  }
}
