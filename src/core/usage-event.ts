/** How an intent was answered: confidently, weakly, or `found: false`. */
export type MatchOutcome = 'high' | 'low' | 'none';

/**
 * One step of an agent's session that the registry can learn from: an intent it matched, or a tool it
 * called. A call soon after a weak or failed match, in the same session, says how that intent is
 * worded by the agents who use the tool (`hldp suggest examples` proposes it to the tool's author).
 */
export type UsageEvent =
  | {
      kind: 'match';
      session: string;
      /** the principal the session acts for; absent in events stored before it was recorded (one unknown principal) */
      principal?: string;
      /** ISO time */
      at: string;
      commit: string;
      intent: string;
      /** the candidates offered, best first (none for `found: false`) */
      tools: string[];
      outcome: MatchOutcome;
    }
  | {
      kind: 'call';
      session: string;
      principal?: string;
      /** the time the call was made (recorded once it has answered) */
      at: string;
      commit: string;
      /** the tool called (its registry name) */
      tool: string;
      /**
       * whether the tool ran and succeeded (a receipt with `ok: true`); false for a refusal, invalid params, a
       * confirmation asked, a failed run or a non-zero exit. Absent in events stored before it was recorded: counted.
       */
      ok?: boolean;
    };
