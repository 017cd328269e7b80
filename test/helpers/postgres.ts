import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { freePort } from './free-port.js';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const execFileAsync = promisify(execFile);

/** Where the PostgreSQL 15 server binaries are (Debian's package `postgresql-15`); `HLDP_TEST_POSTGRES_BIN` overrides. */
export const POSTGRES_BIN = process.env.HLDP_TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** Whether a throwaway cluster can be started here, and if not, why and how to fix it. */
export function postgresAvailability(): { available: true } | { available: false; reason: string } {
  if (!existsSync(join(POSTGRES_BIN, 'initdb')) || !existsSync(join(POSTGRES_BIN, 'postgres'))) {
    return { available: false, reason: `no PostgreSQL server binaries in ${POSTGRES_BIN}: apt-get install postgresql-15 (as .ci/run does), or set HLDP_TEST_POSTGRES_BIN` };
  }
  if (userInfo().uid === 0 && !systemUser('postgres')) {
    return { available: false, reason: "running as root and there is no 'postgres' system user to run initdb as (initdb refuses root): apt-get install postgresql-15 creates it" };
  }
  return { available: true };
}

function systemUser(name: string): boolean {
  try {
    return readFileSync('/etc/passwd', 'utf8').split('\n').some((line) => line.startsWith(`${name}:`));
  } catch {
    return false;
  }
}

/** A running throwaway cluster: trust authentication, loopback only, in its own temporary folder. */
export interface PostgresCluster {
  /** the server's port on 127.0.0.1 */
  port: number;
  /** a connection URL to `database` (default: the `postgres` maintenance database) */
  url(database?: string): string;
  /** creates an empty database with a fresh name; resolves to its URL */
  createDatabase(prefix?: string): Promise<string>;
  /** the postmaster's pid (a test may stop or kill it) */
  readonly pid: number;
  /** fast shutdown, then the folder is removed */
  stop(): Promise<void>;
}

/** Options of a throwaway cluster. */
export interface StartPostgresOptions {
  /** durable commits (fsync on): for benchmarks; tests leave it off, which is faster and loses nothing a test needs */
  durable?: boolean;
  /** extra `-c name=value` settings */
  settings?: Record<string, string | number>;
}

/**
 * Starts a PostgreSQL cluster from `POSTGRES_BIN` in a temporary folder, as the `postgres` system user when run as root
 * (initdb refuses root), on a free port of 127.0.0.1. The postmaster gets SIGINT (fast shutdown) if this process dies.
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresCluster> {
  const availability = postgresAvailability();
  if (!availability.available) throw new Error(availability.reason);
  const folder = await mkdtemp(join(tmpdir(), 'hldp-pg-'));
  const data = join(folder, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await execFileAsync('id', ['-u', 'postgres']);
    const { stdout: group } = await execFileAsync('id', ['-g', 'postgres']);
    await chown(folder, Number(stdout.trim()), Number(group.trim()));
  }
  const asPostgres = (program: string, args: string[], extra: string[] = []): [string, string[]] =>
    asRoot ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', ...extra, '--', join(POSTGRES_BIN, program), ...args]] : [join(POSTGRES_BIN, program), args];
  try {
    const [initdb, initArgs] = asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
    await execFileAsync(initdb, initArgs, { cwd: folder });
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`);
  }
  const settings: Record<string, string | number> = {
    listen_addresses: '127.0.0.1',
    max_connections: 300,
    ...(options.durable ? {} : { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }),
    ...options.settings,
  };
  let lastError: Error | undefined;
  // a free port can be taken between the probe and the bind by another test run: try a few
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const flags = Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
    const [program, args] = asPostgres('postgres', ['-D', data, '-p', String(port), '-k', folder, ...flags], ['--pdeathsig', 'SIGINT']);
    const child = spawn(program, args, { cwd: folder, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      await readyOrExit(child);
    } catch (error) {
      lastError = error as Error;
      continue;
    }
    return cluster(child, port, folder);
  }
  await rm(folder, { recursive: true, force: true });
  throw lastError ?? new Error('postgres did not start');
}

function cluster(child: ChildProcess, port: number, folder: string): PostgresCluster {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let created = 0;
  const url = (database = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    pid: child.pid!,
    url,
    async createDatabase(prefix = 'hldp_test') {
      const name = `${prefix}_${process.pid}_${++created}_${Math.random().toString(36).slice(2, 8)}`;
      const admin = postgres(url(), { max: 1, onnotice: () => undefined });
      try {
        await admin.unsafe(`CREATE DATABASE "${name}" STRATEGY FILE_COPY`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    async stop() {
      child.kill('SIGINT');
      await exited;
      await rm(folder, { recursive: true, force: true });
    },
  };
}

function readyOrExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer): void => {
      log += chunk.toString();
      if (log.includes('database system is ready to accept connections')) {
        child.stderr!.off('data', onData);
        // keep draining, or a chatty server would block on a full pipe
        child.stderr!.resume();
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = (code: number | null): void => reject(new Error(`postgres exited (${code}) before it was ready:\n${log}`));
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
}
