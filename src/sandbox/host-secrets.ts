import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Where hosts keep secrets under /etc, hidden from a root gateway's tools even when they appear after its start (a
 * `*` stands for any characters of one name): password hashes, SSH host keys, TLS and VPN private keys, Kerberos
 * keytabs, systemd credentials.
 */
export const KNOWN_SECRETS: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/security/opasswd',
  '/etc/ssh/*_key',
  '/etc/ssl/private',
  '/etc/pki/tls/private',
  '/etc/letsencrypt/archive',
  '/etc/letsencrypt/keys',
  '/etc/credstore',
  '/etc/credstore.encrypted',
  '/etc/wireguard',
  '/etc/NetworkManager/system-connections',
  '/etc/ipsec.secrets',
  '/etc/ipsec.d/private',
  '/etc/krb5.keytab',
  '/etc/ppp/chap-secrets',
  '/etc/ppp/pap-secrets',
];

/** How many entries of /etc the start reads at most, and how many root-only ones it hides at most (each is a mount per run). */
const MOST_VISITED = 50_000;
const MOST_HIDDEN = 256;

/** The known secret locations that are plain paths, each whether it exists or not (every launch looks again). */
export function knownSecrets(patterns: readonly string[] = KNOWN_SECRETS): string[] {
  return patterns.filter((pattern) => !basename(pattern).includes('*'));
}

/** The known secret locations that name several (`/etc/ssh/*_key`), expanded by `expandPatterns` at each launch. */
export function secretPatterns(patterns: readonly string[] = KNOWN_SECRETS): string[] {
  return patterns.filter((pattern) => basename(pattern).includes('*'));
}

/** Each `*` pattern's matches as its folder holds them now (a `*` stands for any characters of one name). */
export function expandPatterns(patterns: readonly string[]): string[] {
  const found: string[] = [];
  for (const pattern of patterns) {
    const name = basename(pattern);
    const matcher = new RegExp(`^${name.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    let names: string[];
    try {
      names = readdirSync(dirname(pattern));
    } catch {
      continue;
    }
    found.push(...names.filter((entry) => matcher.test(entry)).map((entry) => join(dirname(pattern), entry)));
  }
  return found;
}

/**
 * Every file or folder under `folder` that only its owner or group may read (no read for others; a folder, no read or
 * search): what the host keeps from everyone but root, such as a systemd EnvironmentFile holding the gateway's own
 * tokens (review K, K3). A root gateway's tools run as root, for whom no mode bars a read, so these are hidden from
 * them. Symlinks are not followed; a hidden folder's contents need no entry of their own.
 *
 * Synchronous, once per start: each of /etc's entries read through libuv's pool, one after another, waited for a turn
 * of the event loop and a pool thread — ~1,200 round trips here, 90-135 ms of CPU and 0.5-0.9 s of wall on a loaded
 * machine against 6-23 ms and 18-100 ms read directly, and a server listened only once they were done (issue #18).
 * `MOST_VISITED` bounds how long it can hold the loop.
 */
export function rootOnlyEntries(folder = '/etc'): string[] {
  const found: string[] = [];
  let visited = 0;
  const walk = (path: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++visited > MOST_VISITED) return;
      if (!entry.isFile() && !entry.isDirectory()) continue;
      const child = join(path, entry.name);
      let info;
      try {
        info = lstatSync(child, { throwIfNoEntry: false });
      } catch {
        continue;
      }
      if (!info) continue;
      const others = info.mode & 0o007;
      if (entry.isFile() && (others & 0o004) === 0) found.push(child);
      else if (entry.isDirectory()) {
        if ((others & 0o005) !== 0o005) found.push(child);
        else walk(child);
      }
    }
  };
  walk(folder);
  return collapsed(found, folder, MOST_HIDDEN);
}

/**
 * At most `most` paths hiding at least what `found` names (review M, M1: past the cap the rest were readable): the
 * folder holding the most found entries is hidden whole in their place, again until they fit, never `top` itself (a
 * host whose /etc holds more root-only files directly than that keeps them all, one mount each).
 */
export function collapsed(found: readonly string[], top: string, most: number): string[] {
  let paths = [...found];
  while (paths.length > most) {
    const counts = new Map<string, number>();
    for (const path of paths) {
      const folder = dirname(path);
      if (folder !== top && folder.startsWith(`${top}/`)) counts.set(folder, (counts.get(folder) ?? 0) + 1);
    }
    let widest: string | undefined;
    for (const [folder, count] of counts) if (count > 1 && (widest === undefined || count > counts.get(widest)! || (count === counts.get(widest)! && folder.length > widest.length))) widest = folder;
    // no folder below `top` holds two: hiding one would make no room; each stays a mount of its own
    if (widest === undefined) break;
    const inside = (path: string): boolean => path === widest || path.startsWith(`${widest}/`);
    paths = [...paths.filter((path) => !inside(path)), widest];
  }
  return paths;
}

/**
 * What a root gateway's tools must not read of the host: the known secret locations that are plain paths and every
 * root-only entry of /etc (the patterns, `secretPatterns`, are expanded at each launch).
 */
export function hostSecrets(): string[] {
  return [...new Set([...knownSecrets(), ...rootOnlyEntries()])];
}
