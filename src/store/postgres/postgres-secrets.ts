import type { DeploymentSecrets } from '../store.js';
import { PostgresTable } from './postgres-table.js';

/** Deployment secrets in the `deployment_secrets` table: the first insert wins (ON CONFLICT DO NOTHING), every instance reads it. */
export class PostgresDeploymentSecrets extends PostgresTable implements DeploymentSecrets {
  async getOrCreate(name: string, make: () => string): Promise<string> {
    const kept = await this.sql<Array<{ value: string }>>`SELECT value FROM deployment_secrets WHERE name = ${name}`;
    if (kept[0]) return kept[0].value;
    await this.sql`INSERT INTO deployment_secrets (name, value, created_ms) VALUES (${name}, ${make()}, ${this.now()}) ON CONFLICT (name) DO NOTHING`;
    const [row] = await this.sql<Array<{ value: string }>>`SELECT value FROM deployment_secrets WHERE name = ${name}`;
    return row!.value;
  }
}
