/** Who the gateway is on its database: what a refusal's advice names. */
export interface ConnectedAs {
  role: string;
  database: string;
}

/** PostgreSQL's SQLSTATE for "insufficient privilege". */
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * The advice added to a store that cannot be opened because its role may not create the schema's tables. Since
 * PostgreSQL 15 only a database's owner may create in its schema `public`: a database created by a superuser for a
 * role that does not own it gave "permission denied for schema public" and nothing more (review userW, W7).
 */
export function permissionHint(error: unknown, who: ConnectedAs | undefined): string | undefined {
  if ((error as { code?: unknown } | null)?.code !== INSUFFICIENT_PRIVILEGE) return undefined;
  const role = who ? quoteIdentifier(who.role) : 'the role of HLDP_STORE_URL';
  const database = who ? quoteIdentifier(who.database) : 'the database';
  return (
    `; the role ${role} may not create brush-holder's tables in schema public of database ${database} ` +
    `(since PostgreSQL 15 only the database's owner may, unless granted). As a superuser, make it the owner: ` +
    `ALTER DATABASE ${database} OWNER TO ${role}; or grant it: GRANT CREATE ON SCHEMA public TO ${role} (connected to ${database}). ` +
    `A new database: createdb -E UTF8 -O ${role} ${database}`
  );
}

// an identifier as psql takes it: bare when it is a plain lower-case name, else double-quoted
function quoteIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
