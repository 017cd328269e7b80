import { makeToolYaml } from './git.js';

// A registry of numbered tools over ten topics, each with examples and an alias: enough shared words that a request
// has many candidates. The restart-onto-a-newer-commit tests (search index, a real `hldp serve`) start from it.

const TOPICS = ['weather', 'invoice', 'ledger', 'calendar', 'mailbox', 'printer', 'backup', 'deploy', 'ticket', 'payroll'];

/** Tool number `at`'s name. */
export const topicToolName = (at: number): string => `tool-${String(at).padStart(4, '0')}`;

/** Tool number `at`'s definition. */
export function topicToolDefinition(at: number, intent = `manage the ${TOPICS[at % TOPICS.length]} of team ${at}`): string {
  const name = topicToolName(at);
  return makeToolYaml(name, { intent, examples: `["show the ${TOPICS[(at + 3) % TOPICS.length]} for ${at}", "open the ${TOPICS[at % TOPICS.length]} list"]`, aliases: `["${TOPICS[at % TOPICS.length]} helper ${at}"]` });
}

/** The files of a repository of `count` such tools. */
export function topicToolFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let at = 0; at < count; at++) files[`tools/${topicToolName(at)}/TOOL.hdlp`] = topicToolDefinition(at);
  return files;
}

/** A commit made while no process runs: a tool edited, one added, one removed, an alias changed. */
export function changesWhileDown(): Record<string, string | null> {
  return {
    [`tools/${topicToolName(7)}/TOOL.hdlp`]: topicToolDefinition(7, 'sort the parcels of the harbour'),
    'tools/added/TOOL.hdlp': makeToolYaml('added', { intent: 'weigh the parcels at the harbour', examples: '["weigh a parcel"]' }),
    [`tools/${topicToolName(11)}/TOOL.hdlp`]: null,
    [`tools/${topicToolName(12)}/TOOL.hdlp`]: makeToolYaml(topicToolName(12), { intent: 'manage the ledger of team 12', aliases: '["ledger desk"]' }),
  };
}

/** Requests over those tools, the changed ones' words among them, and one that fits none. */
export const TOPIC_INTENTS = ['check the weather list', 'open the payroll', 'deploy helper', 'manage the ticket of team 7', 'sort the parcels of the harbour', 'weigh a parcel', 'something else entirely'];
