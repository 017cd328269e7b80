import type { Logger } from 'pino';
import type { ProgressUpdate } from '../../core/index.js';
import type { MatchContext } from '../../matcher/index.js';
import type { SessionState } from '../../sessions/index.js';
import type { Store } from '../../store/index.js';
import type { GatewayConfig } from '../../config/index.js';
import type { CallOutcome } from './call-outcome.js';
import type { RescanResult } from './registry-swap.js';

// What the gateway's callers and call steps pass to it and hear from it.

/**
 * How to match an intent: at most `limit` candidates; `context` (tools, group) moves the tools it
 * points at up; `session` adds the tools that session called lately, and records the match.
 */
export interface MatchOptions {
  limit?: number;
  context?: Omit<MatchContext, 'recent'>;
  /** the agent session asking (MCP: its connection's; HTTP: `X-HLDP-Session`), if any */
  session?: SessionState;
  /** the principal asking (with a session, the session's): only tools it may use are offered */
  caller?: string;
  /** how long to wait for intent matching while it is being prepared (start, default {@link MATCH_WAIT_MS}) before `SearchIndexLoadingError` */
  waitMs?: number;
}

/** What a gateway reports as it works (metrics subscribe here, so CLI, HTTP and MCP calls all count). */
export interface GatewayObserver {
  /** `asked`: the tool name as the caller gave it (absent for a confirmation), who called, and in which session */
  called?(outcome: CallOutcome, seconds: number, asked?: CallAsked): void;
  matched?(seconds: number): void;
  scanned?(result: RescanResult | { error: Error }): void;
}

/** What observers learn of a call besides its outcome. */
export interface CallAsked {
  tool?: string;
  caller?: string;
  session?: string;
}

/** One call on its way down the call path. */
export interface CallRequest {
  tool: string;
  params: unknown;
  signal?: AbortSignal;
  /** the call's own deadline in ms, within the tool's `max_timeout_ms`; absent: the tool's `timeout_ms` */
  timeoutMs?: number;
  /** where the running call's progress goes (an MCP client's progress token), if its executor reports any */
  onProgress?: (update: ProgressUpdate) => void;
  /** the agent session the call is made in, if any */
  session?: SessionState;
  /** the principal the call is made for (with a session, the session's); absent: nobody, refused once credentials are configured */
  caller?: string;
  /** `tool_call` runs any tool the caller may run; a direct call of a reserved tool enables its toolset instead */
  via?: 'direct' | 'tool_call';
}

/** How one call or confirmation runs: what a surface passes besides the tool and its params. */
export type CallOptions = Omit<CallRequest, 'tool' | 'params'>;

/**
 * One step of the call path before execution (visibility; the policy, approval and event steps of later
 * work): it answers the call itself, or passes it on with `next`. Steps run in the order they were added.
 */
export type CallStep = (request: CallRequest, next: (request: CallRequest) => Promise<CallOutcome>) => Promise<CallOutcome>;

/** How to open a gateway; the store, logger, observers, session store and clock may be injected (tests, embedding, metrics). */
export interface GatewayOptions {
  config: GatewayConfig;
  logger?: Logger;
  store?: Store;
  observer?: GatewayObserver;
  /** more observers: metrics, events and anything else subscribe side by side */
  observers?: GatewayObserver[];
  /** the sessions' clock (tests move time with it) */
  clock?: () => number;
  /** probe the sandbox while the repository is scanned (servers, whose `warmUp` awaits the probe), not on the first call */
  probeSandbox?: boolean;
  /**
   * Where what the sandbox did to the workspace is said (a root-owned one given to `sandbox.run_as`), instead of the
   * logger's warning: the CLI, which has no logger, prints it on stderr (review userZ3, LOW 7)
   */
  onWorkspaceNotice?: (message: string) => void;
  /** stops the first scan (a remote's fetch under way is dropped) and the open with it: a server stopped while it starts (review Z17, Z17-6) */
  signal?: AbortSignal;
}
