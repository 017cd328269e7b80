import { JSON_OPTION, REPOSITORY_OPTIONS, REPOSITORY_USAGE, writeJson, writeLines, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

const KINDS = ['examples'] as const;

// a misspelt kind is answered with the one meant, as a misspelt command or option is (review userZ3, LOW 9)
async function unknownKind(typed: string | undefined): Promise<string> {
  const usage = 'hldp suggest examples [--since ISO]';
  if (typed === undefined) return `suggest what? the one kind is 'examples': ${usage}`;
  const { nearWord } = await import('../../core/index.js');
  const near = nearWord(typed, KINDS);
  return near ? `unknown kind '${typed}'; did you mean '${near}'? ${usage}` : `unknown kind '${typed}'; the one kind is 'examples': ${usage}`;
}

// the principals behind a text, the first three by name
function named(by: readonly string[]): string {
  return by.length <= 3 ? by.join(', ') : `${by.slice(0, 3).join(', ')}, …`;
}

/** `hldp suggest examples`: request texts to add to tools' examples and aliases, from stored match → call pairs. */
export const suggestCommand: Command = {
  name: 'suggest',
  usage: `examples [--since ISO] [--window MINUTES] [--min N] ${REPOSITORY_USAGE} [--json]`,
  summary: 'propose examples/aliases from requests agents matched weakly, then called a tool for (for review; writes nothing)',
  options: { ...REPOSITORY_OPTIONS, ...JSON_OPTION, since: { type: 'string' }, window: { type: 'string' }, min: { type: 'string' } },
  optionHelp: { since: 'ISO: read the sessions stored since this date or time', min: 'N: propose a text once N distinct principals asked it (one agent\'s many sessions count once)' },
  maxPositionals: 1,
  async run(flags, positionals, io) {
    if (positionals[0] !== 'examples') throw new UsageError(await unknownKind(positionals[0]));
    if (typeof flags.since === 'string' && Number.isNaN(Date.parse(flags.since))) throw new UsageError('--since must be an ISO date or time, e.g. 2026-11-29T10:00:00Z');
    const windowMinutes = flags.window === undefined ? 10 : Number(flags.window);
    if (!(windowMinutes > 0 && windowMinutes <= 24 * 60)) throw new UsageError('--window must be a number of minutes from 1 to 1440');
    const minCount = flags.min === undefined ? 1 : Number(flags.min);
    if (!Number.isInteger(minCount) || minCount < 1) throw new UsageError('--min must be a positive integer');
    const { configFromFlags, scanFromFlags } = await import('../open-registry.js');
    const { openConfiguredStore } = await import('../../gateway/service/index.js');
    const { suggestExamples } = await import('../../matcher/index.js');
    const index = await scanFromFlags(flags);
    const { readStore } = await import('../read-store.js');
    // the store the gateways record into: PostgreSQL when store.url is set (every instance's sessions), else the SQLite
    // file, which a read never creates (review userZ4, F7)
    const read = readStore(configFromFlags(flags, 'optional'), io);
    const store = await openConfiguredStore(read.config);
    try {
      const events = await store.usage.list(typeof flags.since === 'string' ? { since: flags.since } : {});
      const suggestions = suggestExamples(events, index, { windowMs: windowMinutes * 60_000, minCount });
      if (flags.json) {
        writeJson(io, { commit: index.commit, since: flags.since ?? null, events: events.length, suggestions });
        return 0;
      }
      if (suggestions.length === 0) {
        io.stderr.write(`no request matched weakly and then answered by a call in ${events.length} stored session event(s)${typeof flags.since === 'string' ? ` since ${flags.since}` : ''}${read.missing ? '' : ` in ${read.name}`}\n`);
        return 0;
      }
      const lines: string[] = [];
      for (const suggestion of suggestions) {
        lines.push(`${suggestion.path}`);
        for (const [field, texts] of [['examples', suggestion.examples], ['aliases', suggestion.aliases]] as const) {
          if (texts.length === 0) continue;
          lines.push(`  ${field}:`);
          // a JSON string is a YAML string: paste as is
          for (const text of texts) lines.push(`    - ${JSON.stringify(text.text)}    # ${text.count}× in ${text.sessions} session(s) by ${text.principals} principal(s) (${named(text.by)}); was ${text.answered.join(', ')}`);
        }
      }
      writeLines(io.stdout, lines);
      io.stderr.write('review these, add the ones that fit to the tools\' definitions and commit them: the gateway never writes tools\n');
      return 0;
    } finally {
      await store.close();
    }
  },
};
