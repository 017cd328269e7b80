import type { DeclaredSandbox } from '../core/index.js';
import type { Sandbox } from '../sandbox/index.js';

/** What every gatekeeper method runs within. */
export interface MethodContext {
  /** the resolved root every path stays inside; the sandbox lets exec write it */
  root: string;
  /** the host's sandbox exec starts its process in; without one, a PID namespace of its own only */
  sandbox?: Sandbox;
  /** paths inside the root no method may read, write or list (the gateway's own data): the sandbox hides them from exec */
  hidden?: readonly string[];
  /** paths inside the root write_file may not write (the tools repository, the gateway's own files): the sandbox shows them read-only to exec */
  readOnly?: readonly string[];
  /** the calling tool's declared `sandbox:` block */
  declared?: DeclaredSandbox;
  timeoutMs: number;
  maxOutputBytes: number;
  /** fires when the caller hung up */
  signal: AbortSignal;
}
