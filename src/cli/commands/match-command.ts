import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, writeJson, writeLines, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';
import { DEFAULT_LIMIT, isMatchLimit, limitRefusal, MAX_LIMIT, type MatchResult, type ToolIndex } from '../../core/index.js';

/** `hldp match`: 1 to MAX_LIMIT (3) candidates for an intent, or `found: false` with a suggestion; never runs anything. */
export const matchCommand: Command = {
  name: 'match',
  usage: `"INTENT" [--limit N] ${REPOSITORY_USAGE} [--json]`,
  summary: 'find the tools that fit an intent (never runs them)',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION, limit: { type: 'string', short: 'n' } },
  optionHelp: { limit: `N: at most N candidates, an integer from 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` },
  maxPositionals: 1,
  async run(flags, positionals, io) {
    const intent = positionals[0]?.trim();
    if (!intent) throw new UsageError('match needs an intent, e.g. hldp match "查看最近的提交记录"');
    // the limit POST /v1/match holds an agent to: the same intent is not answered here and refused there (review R, R16)
    const { MAX_INTENT_CHARACTERS } = await import('../../core/index.js');
    const characters = [...intent].length;
    if (characters > MAX_INTENT_CHARACTERS) throw new UsageError(`the intent is ${characters} characters; a match takes at most ${MAX_INTENT_CHARACTERS} (as POST /v1/match does): say what you want done in fewer words`);
    const { createMatcher, createModelStage, formatMatchResult, matchWithModel } = await import('../../matcher/index.js');
    const { configFromFlags, scanWithUncommitted } = await import('../open-registry.js');
    const limit = flags.limit === undefined ? undefined : matchLimit(String(flags.limit));
    const { warnIfStale } = await import('../stale-index.js');
    const { warnIfUncommitted } = await import('../uncommitted-definitions.js');
    const answer = (index: ToolIndex, uncommitted: string[], result: MatchResult): number => {
      // candidates from the last index read may lack a tool pushed since, or name one removed: said, as hldp list says it
      warnIfStale(index, io);
      // an author's new tool, not yet committed, is matched by nothing: said, as hldp scan and list say it
      warnIfUncommitted(index.source, uncommitted, 'read', io);
      if (flags.json) writeJson(io, { ...result, ...(index.stale ? { stale: index.stale } : {}), ...(uncommitted.length > 0 ? { uncommitted } : {}) });
      else writeLines(io.stdout, [formatMatchResult(result)]);
      return result.found ? 0 : 1;
    };
    const asked = limit === undefined ? {} : { limit };
    // as HLDP_TOKEN's principal, the answer POST /v1/match gives it, through the same path: a tool its rules forbid or
    // hide is no candidate (it was offered, found: true, confidence: high: review userZ11, U11-7); a token of no one stops it
    if (process.env.HLDP_TOKEN) {
      const { cliCaller, withGateway } = await import('../with-gateway.js');
      const { uncommittedDefinitions } = await import('../uncommitted-definitions.js');
      return withGateway(flags, io, async (gateway) => {
        const caller = cliCaller(gateway);
        const { index } = gateway.registry;
        const uncommitted = await uncommittedDefinitions(gateway.config.repository.source, gateway.config.repository.ref);
        // the CLI waits for its own search index, however long it takes to build (a server answers 503 past 20 s)
        return answer(index, uncommitted, await gateway.match(intent, { ...asked, caller, waitMs: 2 ** 31 - 1 }));
      }, 'optional', 'none');
    }
    const { index, uncommitted } = await scanWithUncommitted(flags);
    const { matcherModel } = configFromFlags(flags, 'optional');
    const { terminalSafe } = await import('../terminal-safe.js');
    // the message holds the endpoint's own text (its error body): written as every remote text is, its controls and
    // bidi characters as their escapes — it set the terminal's title and clipboard (review Z13, Z13-1)
    const onFailure = (message: string): void => void io.stderr.write(`hldp match: the model stage failed (${terminalSafe(message)}); answering from the words alone\n`);
    const stage = matcherModel === undefined ? undefined : createModelStage(matcherModel, { onFailure });
    return answer(index, uncommitted, await matchWithModel(await createMatcher(index).ready(intent), stage, intent, asked));
  },
};

// --limit as typed: an integer from 1 to MAX_LIMIT, else exit 2 in the words POST /v1/match answers 400 with (review U11-25)
function matchLimit(text: string): number {
  const value = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?\s*$/i.test(text) ? Number(text) : undefined;
  if (value === undefined || !isMatchLimit(value)) throw new UsageError(limitRefusal('--limit', value ?? text));
  return value;
}
