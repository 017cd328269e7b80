import type { ErrorCode } from './error-code.js';
import type { ResourceLimitName } from './tool-sandbox.js';
import type { ExecutorName } from './tool-definition.js';

/** What an executor reports about one run: the same shape whether it worked or not. */
export interface ExecutionResult {
  ok: boolean;
  /** raw stdout or response body, bounded by `max_output_bytes` with the cut marked in place */
  output: string;
  /** the raw error when `ok` is false: stderr, HTTP status and body, or the exception; otherwise null */
  error: string | null;
  /** stderr of a process, even when it succeeded (bounded like `output`) */
  stderr: string;
  code: ErrorCode | null;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  /** bytes the tool produced on its output channels, before any cut */
  output_bytes: number;
  /** bytes left out of `output` and `stderr` by the cap */
  cut_bytes: number;
  /** present (true) only when the bytes kept of stdout (the body) were not valid UTF-8: `output` shows each invalid sequence as U+FFFD */
  output_lossy?: true;
  /** the same for stderr */
  stderr_lossy?: true;
  /** an MCP tool's `structuredContent`, kept whole (the text output is what `max_output_bytes` bounds) */
  structured_content?: Record<string, unknown>;
  /**
   * an MCP tool's content blocks that are not text (images, audio, embedded resources, resource links), in the
   * server's order: never inlined in `output` as base64 text; absent when there are none
   */
  attachments?: ReceiptAttachment[];
  duration_ms: number;
  /** with code `RESOURCE_LIMIT`: the limit that was hit */
  resource_limit?: ResourceLimitName;
}

/**
 * A content block of an MCP tool's answer that is not text, as a receipt lists it. Its payload (`data` or `text`) is
 * here only when it fits whole in what the tool's `max_output_bytes` leaves after the text output; otherwise `omitted`
 * says why, and the receipt's `cut_bytes` counts it. A payload is never cut in part.
 */
export interface ReceiptAttachment {
  /** the block's place among all the server's content blocks (text ones included), from 0 */
  index: number;
  /** `image`, `audio`, `resource` (an embedded resource) or `resource_link` */
  type: string;
  /** the MIME type the server gave, null when it gave none */
  mime_type: string | null;
  /** the payload's size: base64 `data` decoded, an embedded text resource's text as UTF-8; 0 for a link */
  bytes: number;
  /** a resource's (or a link's) URI */
  uri?: string;
  /** a resource link's name */
  name?: string;
  /** base64, exactly as the server sent it: an image's or audio's data, a resource's blob */
  data?: string;
  /** an embedded text resource's text, exactly as the server sent it */
  text?: string;
  /** present when the payload is left out: why, and how to receive it */
  omitted?: string;
}

/** The record of one accepted call: the spec's six fields first, then what a human needs to audit it. */
export interface Receipt extends ExecutionResult {
  /** call id */
  id: string;
  tool: string;
  /** the definition's `method` */
  method: string;
  executor: ExecutorName;
  /** the index commit the call ran against */
  commit: string;
  params: Record<string, unknown>;
  started_at: string;
  finished_at: string;
  /** the id of the approval request the call went through (`approval` says who decided it, how and why), null when none was needed */
  confirmation: string | null;
  /** the principal the call was made for; absent only on receipts stored before principals existed */
  caller?: string | null;
  /** the agent session the call was made in, null without one */
  session?: string | null;
  /** the approval request the call went through (who decided it, how, why, under which rule); null when none was needed */
  approval?: ReceiptApproval | null;
  /** the deadline the call ran under: the tool's `timeout_ms`, or the one the call asked for */
  timeout_ms?: number;
  /** where `timeout_ms` came from; absent on receipts stored before it was kept (and on a decided request filed by a gateway that did not keep it) */
  timeout_from?: TimeoutSource;
  /** which gateway made it, and from which repository: one user's gateways share a receipts database by default */
  source?: ReceiptSource;
}

/**
 * Where a call's deadline came from: the tool's own `constraints.timeout_ms` (`tool`), the spec's 30 s `default` (the
 * tool's constraints set no timeout_ms, or set exactly 30000), the gateway's `max_call_timeout_ms` cutting the tool's
 * (`ceiling`), the call's own `timeout_ms` (`call`), or the one asked for when its approval request was approved or
 * confirmed (`approval`).
 */
export type TimeoutSource = 'tool' | 'default' | 'ceiling' | 'call' | 'approval';

/** The deadline a call runs under and, where known, where it came from. */
export interface CallDeadline {
  timeoutMs: number;
  from?: TimeoutSource;
}

/**
 * Where a receipt was made. As stored, and as an admin reads it: `host`, `repository` and (served) `url`; as anyone
 * else reads it (`sourceSeen`): `repository` by its remote URL or its folder's name, and `withheld` in place of the rest.
 */
export interface ReceiptSource {
  /** the machine's host name; absent where it is withheld */
  host?: string;
  /** the repository the index was read from (credentials removed); only its folder's name where its path is withheld */
  repository: string;
  /** the gateway's HTTP address when it serves one; absent for a CLI or stdio MCP call, and where it is withheld */
  url?: string;
  /** what was left out, and who can read it: present only in the view of one who is no admin (review Z7, Z7-1) */
  withheld?: string;
}

/** A receipt's link to the approval request its call went through. */
export interface ReceiptApproval {
  id: string;
  status: 'approved' | 'denied' | 'expired' | 'cancelled';
  decided_by: string | null;
  reason: string | null;
  decided_at: string;
  /** through the API (an approver, or the caller where its rule allows), a one-shot CLI recording it for the gateway that filed it (`cli`), a confirmation token, the MCP client's human, the clock, or a changed registry */
  via: 'api' | 'cli' | 'confirm' | 'elicitation' | 'expiry' | 'outdated';
  /** `policies/x.hdlp:line:col`, or null when the tool's own `require_confirm` asked */
  rule: string | null;
}

// Receipts the store could not take, known by the object and never by their text: a receipt's error holds a tool's
// stderr or a server's message, which could say anything (review K, K17)
const notStored = new WeakSet<Receipt>();

/** Marks `receipt` as one the store could not take: no event points at it, no approval links it. */
export function markNotStored(receipt: Receipt): void {
  notStored.add(receipt);
}

/** Whether the store could not take `receipt` (marked by {@link markNotStored}). */
export function wasNotStored(receipt: Receipt): boolean {
  return notStored.has(receipt);
}
