import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
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

/**
 * The known secret locations: each plain path whether it exists or not (every launch looks again, so one made after
 * the start is hidden too), each `*` expanded to the names there now.
 */
export async function knownSecrets(patterns: readonly string[] = KNOWN_SECRETS): Promise<string[]> {
  const found: string[] = [];
  for (const pattern of patterns) {
    const name = basename(pattern);
    if (!name.includes('*')) {
      found.push(pattern);
      continue;
    }
    const matcher = new RegExp(`^${name.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const names = await readdir(dirname(pattern)).catch(() => [] as string[]);
    found.push(...names.filter((entry) => matcher.test(entry)).map((entry) => join(dirname(pattern), entry)));
  }
  return found;
}

/**
 * Every file or folder under `folder` that only its owner or group may read (no read for others; a folder, no read or
 * search): what the host keeps from everyone but root, such as a systemd EnvironmentFile holding the gateway's own
 * tokens (review K, K3). A root gateway's tools run as root, for whom no mode bars a read, so these are hidden from
 * them. Symlinks are not followed; a hidden folder's contents need no entry of their own.
 */
export async function rootOnlyEntries(folder = '/etc'): Promise<string[]> {
  const found: string[] = [];
  let visited = 0;
  const walk = async (path: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++visited > MOST_VISITED || found.length >= MOST_HIDDEN) return;
      if (!entry.isFile() && !entry.isDirectory()) continue;
      const child = join(path, entry.name);
      const info = await lstat(child).catch(() => undefined);
      if (!info) continue;
      const others = info.mode & 0o007;
      if (entry.isFile() && (others & 0o004) === 0) found.push(child);
      else if (entry.isDirectory()) {
        if ((others & 0o005) !== 0o005) found.push(child);
        else await walk(child);
      }
    }
  };
  await walk(folder);
  return found;
}

/** What a root gateway's tools must not read of the host: the known secret locations and every root-only entry of /etc. */
export async function hostSecrets(): Promise<string[]> {
  const [known, rootOnly] = await Promise.all([knownSecrets(), rootOnlyEntries()]);
  return [...new Set([...known, ...rootOnly])];
}
