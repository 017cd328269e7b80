import { isLoopback } from '../../core/index.js';
import { ScanError } from '../scan-error.js';

/**
 * Where a remote repository is and how to ask it: its URL without credentials, the token sent as HTTP Basic auth to
 * its origin alone (a repository that moved to another host is asked without it), and its failures in words that
 * name the fix.
 */
export class RemoteAddress {
  /** the repository's URL, credentials taken out */
  readonly url: string;
  private readonly headers: Record<string, string>;

  constructor(
    url: string,
    token: string | undefined,
    /** the branch asked for, if any: named when the server says it is not found */
    private readonly ref?: string,
  ) {
    const parsed = new URL(url);
    const username = decodeURIComponent(parsed.username) || 'hldp';
    const secret = token ?? (parsed.password ? decodeURIComponent(parsed.password) : undefined);
    parsed.username = '';
    parsed.password = '';
    // credentials travel in a header, never in the URL: it is stored in .git/config and shown to users
    this.url = parsed.toString();
    this.headers = secret ? { Authorization: `Basic ${Buffer.from(`${username}:${secret}`).toString('base64')}` } : {};
    if (secret && parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
      process.emitWarning(`the repository token is sent unencrypted to ${parsed.host} (an http:// URL); use https:// beyond this machine`, { code: 'HLDP_CLEARTEXT_TOKEN' });
    }
  }

  /** The headers of a request to `url` (default: the repository's own address): a fresh object each call. */
  requestHeaders(url = this.url): Record<string, string> {
    // isomorphic-git writes into the headers it is given (Git-Protocol): a shared object would leak protocol v2 into a v1 fetch.
    // The token goes only to the origin it was given for: a repository that moved to another host (a redirect of its
    // info/refs) is fetched from there without it, as a redirect is followed
    return new URL(url).origin === new URL(this.url).origin ? { ...this.headers } : {};
  }

  /** A failure to `action` the repository as a ScanError: a refused token, a missing branch, or an unreachable server. */
  describe(action: string, error: unknown): ScanError {
    const cause = error as { code?: string; data?: { statusCode?: number; url?: string }; message?: string };
    const status = cause.data?.statusCode;
    if (status === 401 || status === 403) {
      const answered = cause.data?.url;
      if (answered && new URL(answered).origin !== new URL(this.url).origin) return this.refusedElsewhere(action, status, answered);
      // a token given and refused needs another token (or rights), not "set a token" (review userZ, Z5)
      const fix = 'Authorization' in this.headers
        ? `the token given was refused${status === 403 ? ' (it may lack read access to this repository)' : ''}: check it, or set another (--token, HLDP_REPO_TOKEN or repository.token in the config)`
        : 'set a token with read access (--token, HLDP_REPO_TOKEN or repository.token in the config)';
      return new ScanError('AUTHENTICATION_FAILED', `cannot ${action} ${this.url}: HTTP ${status}; ${fix}`, { status });
    }
    if (cause.code === 'NotFoundError' && this.ref) {
      return new ScanError('REF_NOT_FOUND', `branch '${this.ref}' does not exist on ${this.url}`, { ref: this.ref });
    }
    const detail = status ? `HTTP ${status}` : (cause.message ?? String(error));
    return new ScanError('SOURCE_UNREACHABLE', `cannot ${action} ${this.url}: ${detail}`, { status });
  }

  /**
   * Credentials refused by another origin, where the repository's address was redirected: a token set was not sent
   * there (it goes only to the origin it was given for), so "set a token" would not help.
   */
  private refusedElsewhere(action: string, status: number, answered: string): ScanError {
    const where = new URL(answered);
    where.username = '';
    where.password = '';
    const moved = where.href.replace(/\/(info\/refs\?service=git-upload-pack|git-upload-pack)$/, '');
    const token = 'Authorization' in this.headers ? 'the token set is sent only to' : 'a token is sent only to';
    return new ScanError(
      'AUTHENTICATION_FAILED',
      `cannot ${action} ${this.url}: it was redirected to ${where.origin}, which answered HTTP ${status}; ${token} ${new URL(this.url).origin}, never to another origin a server redirects to: if the repository moved, configure its new address (${moved}) with a token for it`,
      { status, redirectedTo: moved },
    );
  }

  /** The refusal of a repository whose object ids are not SHA-1. */
  sha256Refusal(format: string): ScanError {
    return new ScanError('UNSUPPORTED_OBJECT_FORMAT', `repository ${this.url} uses ${format} object ids; brush-holder reads SHA-1 repositories only (isomorphic-git has no SHA-256 support)`, { format });
  }
}
