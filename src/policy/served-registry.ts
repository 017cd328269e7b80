import type { ApprovalFiler, ApprovalRecord } from '../store/index.js';

/** The registry a process serves as a request keeps it (`filed_by.repository`). */
export type ServedRegistry = NonNullable<ApprovalFiler['repository']>;

/**
 * The registry a process serves, as a request it files keeps it: its repository's path or URL (the user name and
 * password of a URL left out), none when it is this package's starter tools (`starter`), its ref when set, and the
 * config file it was started with.
 */
export function servedRegistry(repository: { source: string; ref?: string }, starter: string, configFile?: string): ServedRegistry {
  return {
    ...(repository.source === starter ? {} : { source: withoutCredentials(repository.source) }),
    ...(repository.ref ? { ref: repository.ref } : {}),
    ...(configFile ? { config: configFile } : {}),
  };
}

/**
 * The options that make an hldp command read the registry (and store) a request's gateway serves, with a leading
 * space (`' --config /srv/hldp.yaml --repo /srv/tools'`), or '' when it serves the defaults: a 202's advice `hldp
 * confirm TOKEN` run as written read this package's starter tools and called a good request outdated (review userZ10, U10-1).
 */
export function registryOptions(served: ServedRegistry | undefined): string {
  if (served === undefined) return '';
  const options = [
    ...(served.config ? [`--config ${word(served.config)}`] : []),
    ...(served.source ? [`--repo ${word(served.source)}`] : []),
    ...(served.ref ? [`--ref ${word(served.ref)}`] : []),
  ];
  return options.map((option) => ` ${option}`).join('');
}

/**
 * Why this process cannot tell whether a request is outdated (undefined: it can): the gateway that filed it serves
 * another registry (repository or ref) than this process reads, so "outdated at the commit this process reads: deny
 * it" would have an approver deny a good request (review userZ10, U10-1). Requests filed before the registry was kept
 * are judged as before.
 */
export function otherRegistry(record: ApprovalRecord, here: ServedRegistry | undefined): string | undefined {
  const there = record.rule.filed_by?.repository;
  if (there === undefined || here === undefined) return undefined;
  if ((there.source ?? '') === (here.source ?? '') && (there.ref ?? '') === (here.ref ?? '')) return undefined;
  const url = record.rule.filed_by?.url;
  return `request '${record.id}' was filed by a gateway serving ${registryWords(there)}, and this process reads ${registryWords(here)}: whether it is outdated is for that registry to say, not this one. Nothing was decided here; it stays pending (until ${record.expires_at}): run this command with${registryOptions(there)}${url ? `, or decide it at ${url}/console/approvals/${record.id}` : ''}`;
}

// a registry in words: its repository (and ref), or the starter tools
function registryWords(served: ServedRegistry): string {
  const repository = served.source ?? "this package's starter tools (no --repo)";
  return served.ref ? `${repository} at ref ${served.ref}` : repository;
}

// a repository URL as a message may show it: `https://user:token@host/x` named `https://host/x`
function withoutCredentials(source: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return source;
  try {
    const url = new URL(source);
    if (url.username === '' && url.password === '') return source;
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return source.replace(/\/\/[^/@]*@/, '//');
  }
}

// one word for a POSIX shell: as it is when it needs no quotes, else single-quoted
function word(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
