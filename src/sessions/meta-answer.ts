/** What a meta-tool answers: text for the model, data for programs, and whether the session's view changed. */
export interface MetaAnswer {
  ok: boolean;
  /** a literal code when `ok` is false (or for a notable success such as `ALREADY_ACTIVE`) */
  code?: string;
  message: string;
  data?: Record<string, unknown>;
  /** the session's listed tools may have changed: MCP sends `list_changed` */
  changed: boolean;
}

/** A failed meta-tool call with a code and the message that says how to fix it. */
export function refusal(code: string, message: string, data: Record<string, unknown> = {}): MetaAnswer {
  return { ok: false, code, message, data: { code, ...data }, changed: false };
}
