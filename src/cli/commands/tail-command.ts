import { JSON_OPTION, type Command } from '../command.js';
import { UsageError } from '../usage-error.js';

/** `hldp tail`: follows a running gateway's event stream (GET /v1/events), failures highlighted, reconnecting where it left off. */
export const tailCommand: Command = {
  name: 'tail',
  usage: '[--url URL] [--token T] [--failures] [--types a,b] [--after ID] [--count N] [--color] [--json]',
  summary: "follow a running gateway's events (failures highlighted); resumes where it left off when the connection drops",
  options: {
    ...JSON_OPTION,
    url: { type: 'string', short: 'u' },
    token: { type: 'string' },
    types: { type: 'string' },
    failures: { type: 'boolean' },
    after: { type: 'string' },
    count: { type: 'string', short: 'n' },
    color: { type: 'boolean' },
  },
  // unlike the repository commands' --token, this one is a principal's: whose events to follow (review userV, V5)
  optionHelp: { token: "T: the principal's token to follow the events as (else HLDP_TOKEN, then HLDP_API_TOKEN); its principal's events only, unless an approver or admin; prefer HLDP_TOKEN, since a --token on the command line is readable by every user of this machine (ps)" },
  maxPositionals: 0,
  async run(flags, _positionals, io) {
    const count = flags.count === undefined ? Infinity : Number(flags.count);
    if (!(count === Infinity || (Number.isInteger(count) && count > 0))) throw new UsageError('--count must be a positive integer');
    if (typeof flags.after === 'string' && !/^\d+$/.test(flags.after)) throw new UsageError('--after must be an event id (a non-negative integer)');
    const base = typeof flags.url === 'string' ? flags.url : (process.env.HLDP_URL ?? 'http://127.0.0.1:3900');
    if (!/^https?:\/\//.test(base)) throw new UsageError(`--url must be the gateway's http(s) URL, e.g. http://127.0.0.1:3900, got '${base}'`);
    const types = [...(typeof flags.types === 'string' ? flags.types.split(',') : []), ...(flags.failures ? ['failures'] : [])];
    const token = typeof flags.token === 'string' ? flags.token : (process.env.HLDP_TOKEN ?? process.env.HLDP_API_TOKEN);
    const { cleartextTokenWarning } = await import('../cleartext-token.js');
    const cleartext = cleartextTokenWarning(base, token);
    if (cleartext !== undefined) io.stderr.write(`hldp tail: WARNING: ${cleartext}\n`);
    const { followEvents } = await import('../follow-events.js');
    const { eventLine } = await import('../event-line.js');
    const { terminalSafe } = await import('../terminal-safe.js');
    const color = flags.color === true || (flags.json !== true && (io.stdout as NodeJS.WriteStream).isTTY === true && !process.env.NO_COLOR);
    return followEvents({
      url: base, types, count, ...(token ? { token } : {}),
      ...(typeof flags.after === 'string' ? { after: Number(flags.after) } : {}),
      onEvent: (event) => io.stdout.write(`${flags.json ? JSON.stringify(event) : eventLine(event, color)}\n`),
      // a notice quotes what answered at --url (an error body, a `reset` event's data), which need not be the gateway (review Z13, Z13-3)
      onNotice: (text) => io.stderr.write(`hldp tail: ${terminalSafe(text)}\n`),
    });
  },
};
