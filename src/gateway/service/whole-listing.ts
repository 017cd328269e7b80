import type { Logger } from 'pino';
import { wholeListing, wholeListingWarning } from '../../sessions/index.js';
import type { Gateway } from './gateway.js';

/**
 * Warns, once at a start, when a session with no toolset active would list more tools than the prompt budget holds
 * (review userZ, Z6: 407 tools, 164 KB in tools/list, said nowhere). `narrow` says how this surface's clients start
 * with toolsets. The view it reads is the one the first such `tools/list` reads (kept per index and principal). Never throws.
 */
export function warnOfWholeListing(gateway: Pick<Gateway, 'sessions' | 'registry'>, logger: Pick<Logger, 'warn'>, principal: string | undefined, narrow: string): void {
  try {
    const listing = wholeListing(gateway.registry.index, gateway.sessions.view(undefined, principal));
    if (listing) logger.warn({ tools: listing.tools, budget_chars: listing.budget }, wholeListingWarning(listing, narrow));
  } catch (error) {
    // a warning that cannot be worked out is not worth a server: said, and the server goes on
    logger.warn({ err: error }, 'could not measure what a session with no toolset lists');
  }
}
