import { loadOnce } from '../core/index.js';
import type * as Kit from './client-kit-parts.js';

/** The MCP client SDK and the transports built on it. */
export type ClientKit = typeof Kit;

/**
 * The MCP client SDK (and zod under it), loaded when the first server behind the registry starts: a gateway that
 * never calls one does not pay its module load (~0.4 s of CPU at a 100,000-tool `hldp serve`'s start, issue #18).
 */
export const loadClientKit: () => Promise<ClientKit> = loadOnce(() => import('./client-kit-parts.js'));
