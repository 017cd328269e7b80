import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { FLUSH, packetLine, packetText, readPacket } from './pkt-line.js';
import { MAX_SHALLOW } from './clone-directory.js';

/** What a smart-HTTP server offers to fetch: its refs and its capabilities (protocol v0/v1). */
export interface RefAdvertisement {
  /** the branches, `refs/heads/<name>` → object id: what a head check reads (tags and other refs are read past, not kept) */
  refs: Map<string, string>;
  capabilities: Set<string>;
  /**
   * The repository's address to fetch from: the one asked, or where a redirect of `info/refs` led (a repository that
   * moved answers its `info/refs` with a 301 or 302; git then sends its later requests to the new address, and a POST
   * sent to the old one would be redirected as a GET and refused).
   */
  url: string;
}

/** What one fetch asks for. */
export interface PackRequest {
  want: string;
  /** commits we hold whole: the server sends only what they lack, and may send deltas against their objects (a thin pack) */
  haves: readonly string[];
  /** our shallow boundary (`.git/shallow`): commits whose parents we do not hold */
  shallows: readonly string[];
  /** a fresh clone's history depth (`deepen`): 1 asks for the wanted commit's tree alone, without its parents */
  depth?: number;
}

/** An HTTP status other than 200, shaped as isomorphic-git's errors are (`data.statusCode`) so that one place words it. */
export class UploadPackHttpError extends Error {
  readonly code = 'HttpError';
  /** `url`: the address that answered, where a redirect led (the token goes to its own origin alone) */
  readonly data: { statusCode: number; url: string };

  constructor(statusCode: number, url: string) {
    super(`HTTP ${statusCode} from ${url}`);
    this.data = { statusCode, url };
  }
}

const SERVICE = 'git-upload-pack';
const USER_AGENT = 'git/brush-holder';
// what we ask of a server when it offers it: a thin pack (deltas against what we hold: a one-file commit's new
// `tools/` tree comes as a few hundred bytes instead of the whole tree), offset deltas, and no progress chatter
const WANTED_CAPABILITIES = ['side-band-64k', 'ofs-delta', 'thin-pack', 'no-progress', 'shallow'];

/**
 * What one answer of a server may take: its bytes (held whole until read: a pack is indexed from memory), the time
 * between two of its chunks, and its whole time. Past any, the request is aborted and the scan fails plainly: a
 * server (or anything answering at its address) that streams without end or stalls forever no longer holds the
 * scanner's memory, or its lock on the clone, without bound.
 */
export interface TransferLimits {
  maxBytes: number;
  idleMs: number;
  totalMs: number;
}

/**
 * A ref advertisement: ~60 bytes a ref, so 8 MiB is ~140,000 refs — far past a registry's branches and tags. It was
 * 64 MiB, a million refs, parsed at every head check (review G, F9).
 */
export const ADVERTISEMENT_LIMITS: TransferLimits = { maxBytes: 8 * 1024 * 1024, idleMs: 60_000, totalMs: 5 * 60_000 };

/** How many advertised refs are read between two turns of the event loop. */
const REFS_PER_TURN = 4096;

/** A pack: the whole of a depth-1 clone (~60 MB at 100,000 tools); past 1 GiB, a registry of tools is not what is being read. */
export const PACK_LIMITS: TransferLimits = { maxBytes: 1024 * 1024 * 1024, idleMs: 60_000, totalMs: 15 * 60_000 };

/** GET `info/refs`: the refs and capabilities of the repository at `url` (one round trip: the head check a rescan starts with). */
export async function discoverUploadPack(http: HttpClient, url: string, headers: Record<string, string>, limits = ADVERTISEMENT_LIMITS): Promise<RefAdvertisement> {
  const tail = `/info/refs?service=${SERVICE}`;
  const location = `${url}${tail}`;
  const { response, body, url: answered } = await transfer(http, { url: location, method: 'GET', headers: { ...headers, 'user-agent': USER_AGENT } }, limits);
  // as git does (http.c, update_url_from_redirect): the new address keeps the tail asked for, or it says nothing of
  // where the repository now is
  if (answered !== location && !answered.endsWith(tail)) throw new Error(`${url} redirected its info/refs to ${answered}, which does not end in ${tail}: cannot tell where the repository moved`);
  // the media type alone: a server (or a proxy before it) may add parameters such as `; charset=utf-8`
  const mediaType = (response.headers?.['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== `application/x-${SERVICE}-advertisement`) {
    throw new Error(`${url} did not answer as a smart-HTTP git server (content type ${response.headers?.['content-type'] ?? 'none'})`);
  }
  return { ...(await parseAdvertisement(body)), url: answered.slice(0, -tail.length) };
}

/**
 * The branches and capabilities in a v0/v1 advertisement (`# service=…` and a flush first over HTTP, then one ref a
 * line). Every line is checked; only `refs/heads/*` are kept, and the event loop turns every `REFS_PER_TURN` lines:
 * a 64 MiB advertisement of a million tags, parsed in one synchronous loop, held every request for ~10 s.
 */
export async function parseAdvertisement(body: Buffer): Promise<Omit<RefAdvertisement, 'url'>> {
  const refs = new Map<string, string>();
  let capabilities = new Set<string>();
  let position = 0;
  let first = true;
  for (let lines = 1; position < body.length; lines++) {
    if (lines % REFS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const { packet, next } = readPacket(body, position);
    position = next;
    if (packet.flush) {
      if (first) continue;
      break;
    }
    const line = packetText(packet.payload);
    if (first && line.startsWith('# service=')) continue;
    if (first && line === 'version 1') continue;
    const nul = line.indexOf('\0');
    if (first && nul >= 0) capabilities = new Set(line.slice(nul + 1).split(' ').filter(Boolean));
    // a shallow repository (a depth-1 mirror) lists the commits it holds without parents after its refs (pack-protocol's `shallow` lines)
    if (!first && line.startsWith('shallow ') && /^shallow ([0-9a-f]{40}|[0-9a-f]{64})$/.test(line)) continue;
    first = false;
    // a SHA-256 repository's ids are 64 digits: read, so that the caller can refuse it by its `object-format`
    const match = /^([0-9a-f]{40}|[0-9a-f]{64}) ([^\0 ]+)$/.exec(nul >= 0 ? line.slice(0, nul) : line);
    if (!match) throw new Error(`malformed ref advertisement line: ${JSON.stringify(line.slice(0, 120))}`);
    // an empty repository advertises only its capabilities, on a line named capabilities^{}
    if (match[2]!.startsWith('refs/heads/') && !match[2]!.endsWith('^{}')) refs.set(match[2]!, match[1]!);
  }
  return { refs, capabilities };
}

/** POST `git-upload-pack`: the pack of what `want` has that `haves` lack, as the server sends it (thin when it may). */
export async function fetchPack(http: HttpClient, url: string, headers: Record<string, string>, offered: Set<string>, request: PackRequest, limits = PACK_LIMITS, signal?: AbortSignal): Promise<Buffer> {
  return (await fetchPackWithBoundary(http, url, headers, offered, request, limits, signal)).pack;
}

/** A `deepen` request's pack, and the shallow boundary the server says it leaves: commits now held without their parents (`shallow`), and former ones whose parents came (`unshallow`). */
export interface DeepenedPack {
  pack: Buffer;
  shallow: string[];
  unshallow: string[];
}

/** `fetchPack`, keeping the new shallow boundary its answer begins with (a `deepen` of a shallow clone: see `DeepenedPack`). */
export async function fetchPackWithBoundary(http: HttpClient, url: string, headers: Record<string, string>, offered: Set<string>, request: PackRequest, limits = PACK_LIMITS, signal?: AbortSignal): Promise<DeepenedPack> {
  const shallow = request.shallows.length > 0 || request.depth !== undefined;
  const capabilities = WANTED_CAPABILITIES.filter((capability) => offered.has(capability) && (capability !== 'shallow' || shallow));
  const lines = [packetLine(`want ${request.want} ${[...capabilities, 'agent=brush-holder'].join(' ')}\n`)];
  // a shallow boundary the server does not understand would make it assume we hold history we do not
  if (shallow && !offered.has('shallow')) throw new Error(`${url} does not serve shallow clones; remove the scanner's clone to fetch it whole`);
  for (const oid of request.shallows) lines.push(packetLine(`shallow ${oid}\n`));
  if (request.depth !== undefined) lines.push(packetLine(`deepen ${request.depth}\n`));
  lines.push(FLUSH);
  for (const oid of request.haves) lines.push(packetLine(`have ${oid}\n`));
  lines.push(packetLine('done\n'));
  const location = `${url}/${SERVICE}`;
  const { body } = await transfer(
    http,
    {
      url: location,
      method: 'POST',
      headers: { ...headers, 'user-agent': USER_AGENT, 'content-type': `application/x-${SERVICE}-request`, accept: `application/x-${SERVICE}-result` },
      // an array, not a stream: sent whole with a Content-Length (as isomorphic-git sends it; some servers refuse chunked requests)
      body: [Buffer.concat(lines)] as unknown as AsyncIterableIterator<Uint8Array>,
    },
    limits,
    signal,
  );
  const boundary = { shallow: [] as string[], unshallow: [] as string[] };
  return { pack: await packOfResponse(body, capabilities.includes('side-band-64k'), boundary, request.depth !== undefined, acknowledgementsFor(request.haves.length)), ...boundary };
}

/** How many packets of a fetch's answer are read between two turns of the event loop (as `REFS_PER_TURN`). */
const PACKETS_PER_TURN = 4096;
/** How many bytes of pack data are copied between two turns. */
const COPIED_PER_TURN = 16 * 1024 * 1024;
/**
 * Progress packets (band 2) an answer may carry: we ask `no-progress`, and git's progress, when a server sends it
 * anyway, is a few hundred lines. A hostile server's millions of 5-byte ones are refused (review Z13, Z13-2).
 */
export const MAX_PROGRESS_PACKETS = 10_000;
/**
 * Pack data packets an answer may carry before their average size is checked, and the least average then: git sends
 * pack data as it reads it from pack-objects (kilobytes a packet, 65,515 bytes at most); a pack cut into packets of a
 * byte or a few is ~0.4 µs of CPU a packet, minutes for the 1 GiB an answer may have (review Z13, Z13-2).
 */
export const PACK_PACKETS_UNCHECKED = 65_536;
export const MIN_AVERAGE_PACK_PACKET = 256;

/**
 * The `ACK`/`NAK` lines an answer may begin with, for a request of `haves` haves: we ask no multi_ack, so git answers
 * a `done` with one `NAK` or one `ACK`; twice the haves and a few more leave room for any server's way. A hostile one
 * answered with a gibibyte of `NAK` lines, read to the answer's limit: 64 s of CPU and 2.2 GB a fetch (review Z16, Z16-1).
 */
export function acknowledgementsFor(haves: number): number {
  return 2 * haves + 8;
}

const turn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The pack in an upload-pack answer: after the negotiation's `ACK`/`NAK` lines, either the pack's bytes as they are or,
 * with side-band, packets whose first byte says pack data (1), progress (2) or a fatal error (3). The event loop turns
 * every `PACKETS_PER_TURN` packets: an answer of 2 million 5-byte packets held every request of `hldp serve` for 5.6 s
 * (review Z13, Z13-2); and an answer of more progress packets than `MAX_PROGRESS_PACKETS`, or of pack data cut into
 * packets smaller than `MIN_AVERAGE_PACK_PACKET` bytes on average, or beginning with more than `acknowledgements` ACK/NAK
 * lines, is refused as the server's misbehaviour.
 */
export async function packOfResponse(body: Buffer, sideBand: boolean, boundary?: { shallow: string[]; unshallow: string[] }, deepened = false, acknowledgements = acknowledgementsFor(1)): Promise<Buffer> {
  let position = 0;
  let acknowledged = 0;
  // a `deepen` request's answer begins with its shallow update, which is only a flush where the boundary stays
  let shallowInfo = deepened;
  for (let packets = 1; ; packets++) {
    if (packets % PACKETS_PER_TURN === 0) await turn();
    if (!sideBand && body.toString('latin1', position, position + 4) === 'PACK') return body.subarray(position);
    const { packet, next } = readPacket(body, position);
    // a `deepen` request's answer begins with the new shallow boundary, ended by a flush
    if (packet.flush && shallowInfo) {
      shallowInfo = false;
      position = next;
      continue;
    }
    if (packet.flush) throw new Error('the server sent no pack');
    const band = packet.payload[0];
    if (sideBand && (band === 1 || band === 2 || band === 3)) break;
    const line = packetText(packet.payload);
    if (line.startsWith('ERR ')) throw new Error(`the server refused the fetch: ${line.slice(4)}`);
    if (!/^(ACK [0-9a-f]{40}( \w+)?|NAK|shallow [0-9a-f]{40}|unshallow [0-9a-f]{40})$/.test(line)) {
      throw new Error(`unexpected line in the server's answer: ${JSON.stringify(line.slice(0, 120))}`);
    }
    shallowInfo = /^(un)?shallow /.test(line);
    if (!shallowInfo && ++acknowledged > acknowledgements) {
      throw new Error(`the server misbehaved: its answer begins with more than ${acknowledgements} acknowledgement lines (ACK/NAK), where a fetch of this request draws one`);
    }
    if (shallowInfo) {
      boundary?.[line.startsWith('un') ? 'unshallow' : 'shallow'].push(line.slice(line.indexOf(' ') + 1));
      // a deepen from one commit leaves a boundary of a few commits: millions of lines were believed and written to
      // `.git/shallow`, and sent back by every later fetch (review Z4, F2)
      if (boundary && boundary.shallow.length + boundary.unshallow.length > MAX_SHALLOW) throw new Error(`the server's answer names more than ${MAX_SHALLOW} shallow commits, which a deepen from one commit does not leave`);
    }
    position = next;
  }
  // two passes, the pack's bytes copied once into a buffer of their size: no array of a view per packet
  const start = position;
  let size = 0;
  let progress = 0;
  let data = 0;
  for (let packets = 1; ; packets++) {
    if (packets % PACKETS_PER_TURN === 0) await turn();
    const { packet, next } = readPacket(body, position);
    position = next;
    if (packet.flush) break;
    const band = packet.payload[0];
    if (band === 1) {
      size += packet.payload.length - 1;
      if (++data > PACK_PACKETS_UNCHECKED && size < data * MIN_AVERAGE_PACK_PACKET) {
        throw new Error(`the server misbehaved: it cut the pack into ${data} packets of ${Math.round(size / data)} bytes on average so far (git sends kilobytes a packet); refused, as an answer that would hold the scanner's CPU`);
      }
    } else if (band === 3) throw new Error(`the server failed the fetch: ${packetText(packet.payload.subarray(1))}`);
    else if (band !== 2) throw new Error(`malformed side-band packet (band ${band})`);
    else if (++progress > MAX_PROGRESS_PACKETS) {
      throw new Error(`the server misbehaved: its answer carries more than ${MAX_PROGRESS_PACKETS} progress packets (side band 2), where git sends a few hundred at most and none when asked for no-progress; refused, as an answer that would hold the scanner's CPU`);
    }
  }
  const pack = Buffer.allocUnsafe(size);
  let written = 0;
  // the copy turns by bytes too: 4,096 packets of 64 KiB are 256 MiB copied in one piece
  for (let packets = 1, at = start, turned = 0; written < size; packets++) {
    if (packets % PACKETS_PER_TURN === 0 || written - turned > COPIED_PER_TURN) {
      await turn();
      turned = written;
    }
    const { packet, next } = readPacket(body, at);
    at = next;
    if (!packet.flush && packet.payload[0] === 1) written += packet.payload.copy(pack, written, 1);
  }
  return pack;
}

// Node's global agents (keep-alive, Node 19 and later) end a request whose socket is idle for 5 s, which the HTTP
// client reports as 'Request timed out': a server computing a large pack before its first byte failed the clone.
// `limits` decide how long we wait.
const AGENTS: Record<string, HttpAgent> = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/**
 * One request and its whole answer, within `limits` (an HTTP status other than 200 is thrown once its body is read);
 * `signal` drops it, and its connection, once it is no longer needed.
 */
async function transfer(http: HttpClient, request: GitHttpRequest, limits: TransferLimits, signal?: AbortSignal): Promise<{ response: GitHttpResponse; body: Buffer; url: string }> {
  const controller = new AbortController();
  let fail!: (error: Error) => void;
  const failed = new Promise<never>((_, reject) => {
    fail = (error) => {
      reject(error);
      controller.abort(error);
    };
  });
  // a rejection nobody awaits any more (the answer came first) must not surface as unhandled
  failed.catch(() => {});
  const total = setTimeout(() => fail(new Error(`${request.url} did not answer whole within ${limits.totalMs / 1000} s`)), limits.totalMs);
  const idle = setTimeout(() => fail(new Error(`${request.url} sent nothing for ${limits.idleMs / 1000} s`)), limits.idleMs);
  const dropped = () => fail(new Error(`${request.url}: the request was dropped, no longer needed`));
  if (signal?.aborted) dropped();
  else signal?.addEventListener('abort', dropped, { once: true });
  let chunks: AsyncIterator<Uint8Array> | undefined;
  try {
    const { response, url } = await follow(http, request, controller.signal, failed);
    chunks = response.body ? response.body[Symbol.asyncIterator]() : (async function* () {})();
    // the client undoes a Content-Encoding as it reads: a gzip answer of 1 MB on the wire made 900 MiB counted here.
    // We ask for none; one that comes encoded anyway is refused before a byte of it is decoded.
    const encoding = String(response.headers?.['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity' && encoding !== '') throw new Error(`${request.url} answered with content-encoding ${JSON.stringify(encoding.slice(0, 40))} though asked for none (accept-encoding: identity): the limits count the bytes sent`);
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      idle.refresh();
      const step = await Promise.race([chunks.next(), failed]);
      if (step.done) break;
      size += step.value.length;
      if (size > limits.maxBytes) throw new Error(`${request.url} sent more than the ${limits.maxBytes} bytes an answer may have here`);
      parts.push(step.value);
    }
    chunks = undefined;
    if (response.statusCode !== 200) throw new UploadPackHttpError(response.statusCode, url);
    return { response, body: Buffer.concat(parts, size), url };
  } finally {
    clearTimeout(total);
    clearTimeout(idle);
    signal?.removeEventListener('abort', dropped);
    // an answer left unread (too large, too slow, an error): the connection goes with it
    if (chunks) {
      controller.abort();
      void chunks.return?.()?.catch?.(() => {});
    }
  }
}

/** How many redirects one request follows (git's curl follows a few; a registry's server needs one, if any). */
const MAX_REDIRECTS = 5;

/**
 * `request`, following up to `MAX_REDIRECTS` redirects here rather than in the HTTP client: the client drained each
 * redirect's body to its end after the call had returned, outside every limit — a 302 whose body never ends was read
 * for as long as the process lived, and kept `hldp scan` from exiting. Each redirect's response is dropped with its
 * connection, unread; the hops share the request's timers and `signal`. Credentials (Authorization, Cookie) go only to
 * the origin (scheme, host and port) they were given for, as curl (and so git) does; a redirect from https to http is
 * refused. Only a GET (the ref listing) is redirected: as git (`http.followRedirects=initial`), a fetch's POST goes
 * where the listing led and a redirect of it is an error — followed, a 307 or 308 carried its body (our commits'
 * ids) to wherever the server named.
 */
async function follow(http: HttpClient, request: GitHttpRequest, signal: AbortSignal, failed: Promise<never>): Promise<{ response: GitHttpResponse; url: string }> {
  let current = request;
  for (let hops = 0; ; hops++) {
    const protocol = new URL(current.url).protocol;
    if (!AGENTS[protocol]) throw new Error(`${request.url} redirected to ${current.url}, which is not http(s)`);
    const hop = new AbortController();
    const response = await Promise.race([
      http.request({
        ...current,
        // the bytes counted against the limits are the bytes sent: git's smart HTTP needs no Content-Encoding
        headers: { ...current.headers, 'accept-encoding': 'identity' },
        signal: AbortSignal.any([signal, hop.signal]),
        agent: AGENTS[protocol],
        fetchOptions: { followRedirects: false },
      } as GitHttpRequest),
      failed,
    ]);
    const location = response.headers?.['location'];
    if (response.statusCode < 300 || response.statusCode >= 400 || !location) return { response, url: current.url };
    // the redirect's body is not read: its connection is closed (the client's own 'error' listener stays, for the abort)
    hop.abort();
    if (current.method === 'POST') throw new Error(`${current.url} answered the fetch with a redirect (HTTP ${response.statusCode}) to ${String(location).slice(0, 200)}; as git, only a redirect of the ref listing (info/refs) is followed`);
    if (hops >= MAX_REDIRECTS) throw new Error(`${request.url} redirected more than ${MAX_REDIRECTS} times`);
    current = redirected(current, location);
  }
}

/** The GET a redirect leads to: credentials stay with their origin. */
function redirected(previous: GitHttpRequest, location: string): GitHttpRequest {
  const url = new URL(location, previous.url);
  // git follows it with a warning; here nothing would say so, and the pack (the definitions the gateway runs) would
  // come in clear, for anyone on the path to change: an operator who chose https gets it or an error
  if (new URL(previous.url).protocol === 'https:' && url.protocol === 'http:') {
    throw new Error(`${previous.url} redirected to ${url.href}: from https to plain http, which would fetch the registry's definitions unencrypted; fix the server's redirect, or configure the http:// address yourself if that is meant`);
  }
  const dropped = new Set(['host']);
  if (url.origin !== new URL(previous.url).origin) for (const name of ['authorization', 'cookie']) dropped.add(name);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(previous.headers ?? {})) if (!dropped.has(name.toLowerCase())) headers[name] = value;
  return { ...previous, url: url.href, headers };
}
