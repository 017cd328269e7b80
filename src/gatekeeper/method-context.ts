/** What every gatekeeper method runs within. */
export interface MethodContext {
  /** the resolved root every path stays inside */
  root: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** fires when the caller hung up */
  signal: AbortSignal;
}
