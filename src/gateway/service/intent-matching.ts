import type { Logger } from 'pino';
import type { MatchResult, UsageEvent } from '../../core/index.js';
import { redactValue } from '../../executors/index.js';
import { createModelStage, matchWithModel, type MatchContext, type Matcher, type ModelStage } from '../../matcher/index.js';
import type { GatewayConfig } from '../../config/index.js';
import type { MatchOptions } from './gateway-types.js';
import { MATCH_WAIT_MS, MatchingReadiness } from './matching-readiness.js';
import { RecentTools } from './recent-tools.js';
import type { RegistrySwap } from './registry-swap.js';

/** What intent matching takes from the gateway around it. */
export interface IntentMatchingParts {
  registries: RegistrySwap;
  /** the one visibility function: what of an answer the caller may be offered */
  visible: (answer: MatchResult, caller: string | undefined) => MatchResult;
  /** the same lattice for one tool: whether the caller may be offered it (what the model stage may show and answer) */
  mayOffer: (name: string, caller: string | undefined) => boolean;
  /** the configured secrets, which a request never carries to the model endpoint or the usage events */
  secrets: () => string[];
  /** records a session's match for `hldp suggest examples` */
  usage: (event: UsageEvent) => void;
  /** tells the observers how long a match took */
  matched: (seconds: number) => void;
  matcherModel: GatewayConfig['matcherModel'];
  logger: Logger | undefined;
}

/**
 * From an intent to its candidates: the search index made ready per registry (and before a rescan's swap), the
 * model stage where one is configured, a session's recent tools as context, and the session's match recorded.
 */
export class IntentMatching {
  /** the tools each session called lately: the context of its next matches (the usage step notes them) */
  readonly recentTools = new RecentTools();
  private readonly readiness: MatchingReadiness;
  private readonly modelStage: ModelStage | undefined;

  constructor(private readonly parts: IntentMatchingParts) {
    const { registries, logger, matcherModel } = parts;
    this.readiness = new MatchingReadiness(() => registries.current, logger);
    // once matching has been prepared here (servers), each new registry is prepared before it is swapped in, so matches never wait after a rescan
    registries.beforeSwap(async (next, previous) => {
      if (this.readiness.started(previous.matcher)) await this.prepare(next.matcher).catch(() => undefined);
    });
    const onFailure = (message: string): void => logger?.warn({ model: matcherModel?.model, err: message }, 'matcher model failed; answering from the words alone');
    this.modelStage = matcherModel === undefined ? undefined : createModelStage(matcherModel, { onFailure });
  }

  /** An intent's candidates the caller may use, or `found: false`; waits a bounded time for the search index. */
  async match(intent: string, options: MatchOptions): Promise<MatchResult> {
    const start = performance.now();
    const { session, limit, context } = options;
    const caller = options.caller ?? session?.principal;
    const recent = session === undefined ? [] : this.recentTools.of(session.id);
    const matchContext: MatchContext | undefined = recent.length > 0 ? { ...context, recent } : context;
    const registry = await this.readiness.ready(options.waitMs ?? MATCH_WAIT_MS);
    // a secret pasted into a request goes neither to the model endpoint nor into the stored usage events
    const asked = redactValue(intent, this.parts.secrets());
    // the model sees, and may answer, only the tools this caller may be offered; its requests count against the caller
    const asker = { ...(caller === undefined ? {} : { principal: caller }), mayOffer: (name: string) => this.parts.mayOffer(name, caller) };
    const answer = await matchWithModel(registry.matcher, this.modelStage, asked, {
      ...(limit === undefined ? {} : { limit }),
      ...(matchContext ? { context: matchContext } : {}),
    }, asker);
    // a forbidden or unlisted tool is never offered, with or without a session (the same lattice as tools/list)
    const result = this.parts.visible(answer, caller);
    this.parts.matched((performance.now() - start) / 1000);
    if (session !== undefined) {
      const tools = result.found ? result.candidates.map((candidate) => candidate.name) : [];
      this.parts.usage({ kind: 'match', session: session.id, ...(caller === undefined ? {} : { principal: caller }), at: new Date().toISOString(), commit: registry.index.commit, intent: asked, tools, outcome: result.found ? result.confidence : 'none' });
    }
    return result;
  }

  /** Prepares intent matching over `matcher`, a slice at a time, once per matcher; resolves with it once it is ready. */
  prepare(matcher: Matcher): Promise<Matcher> {
    return this.readiness.prepare(matcher);
  }

  /** Steps run beside the first preparation, which matching waits for before it says ready (a server's body checkers). */
  alsoBeforeReady(steps: () => Generator<void, void, void>): void {
    this.readiness.alsoBeforeReady(steps);
  }

  /** Stops preparing intent matching, now and for good (a closing server); resolves once the preparations have ended (at most 2 s). */
  stop(): Promise<void> {
    return this.readiness.stop();
  }

  /** Intent matching over the current registry: `ready`, `loading` or `failed`. */
  get state(): 'ready' | 'loading' | 'failed' {
    return this.readiness.state;
  }
}
