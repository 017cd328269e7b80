/** The tools each session called lately, most recent first, in memory and bounded (per gateway instance). */
export class RecentTools {
  // insertion order is recency of use: a session is moved to the end each time it calls a tool
  readonly #sessions = new Map<string, string[]>();

  constructor(
    private readonly maxSessions = 10_000,
    private readonly perSession = 10,
  ) {}

  /** The session's recent tools, most recent first. */
  of(session: string): string[] {
    return this.#sessions.get(session) ?? [];
  }

  /** Notes that the session called `tool` now. */
  called(session: string, tool: string): void {
    const tools = [tool, ...this.of(session).filter((name) => name !== tool)].slice(0, this.perSession);
    this.#sessions.delete(session);
    this.#sessions.set(session, tools);
    if (this.#sessions.size > this.maxSessions) {
      const [oldest] = this.#sessions.keys();
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
  }
}
