import postgres, { type Sql } from 'postgres';

/** A pool of connections to the store's database. */
export type Database = Sql<Record<string, never>>;

/** How to reach the database. */
export interface ConnectOptions {
  url: string;
  /** connections in the pool; default 10 */
  poolMax?: number;
  /** seconds to wait for a connection before a query fails; default 5 */
  connectTimeoutSeconds?: number;
  /** how the connections are named in pg_stat_activity; default `brush-holder` */
  applicationName?: string;
}

/** A pool over `url`: bigint columns read as numbers (seq and times stay far below 2^53), notices dropped. */
export function connect(options: ConnectOptions): Database {
  return postgres(options.url, {
    max: options.poolMax ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    idle_timeout: 60,
    onnotice: () => undefined,
    connection: { application_name: options.applicationName ?? 'brush-holder' },
    types: {
      bigint: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (value: string) => Number(value) },
    },
  }) as unknown as Database;
}
