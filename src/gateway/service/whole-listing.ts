import type { Logger } from 'pino';
import { foldedKey, type ToolDefinition } from '../../core/index.js';
import { wholeListing, wholeListingWarning } from '../../sessions/index.js';
import type { Gateway } from './gateway.js';

/**
 * Warns, once at a start, when a session with no toolset active would list more tools than the prompt budget holds
 * (review userZ, Z6: 407 tools, 164 KB in tools/list, said nowhere). `narrow` says how this surface's clients start
 * with toolsets. Tools named (by name, alias or group) in `sessions.on_demand` or `sessions.deny` are not listed so,
 * and do not count. Never throws.
 */
export function warnOfWholeListing(gateway: Pick<Gateway, 'config' | 'registry'>, logger: Pick<Logger, 'warn'>, narrow: string): void {
  try {
    const { onDemand, deny } = gateway.config.sessions;
    // folded as a call's name resolves, and as sessions.deny is matched
    const named = new Set([...onDemand, ...deny].map(foldedKey));
    const reserved = (tool: ToolDefinition): boolean =>
      named.size > 0 && [tool.name, tool.group, ...tool.aliases].some((name) => name !== undefined && named.has(foldedKey(name)));
    const listing = wholeListing(gateway.registry.index, reserved);
    if (listing) logger.warn({ tools: listing.tools, budget_chars: listing.budget }, wholeListingWarning(listing, narrow));
  } catch (error) {
    // a warning that cannot be worked out is not worth a server: said, and the server goes on
    logger.warn({ err: error }, 'could not measure what a session with no toolset lists');
  }
}
