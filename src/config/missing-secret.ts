import { ConfigError } from './gateway-config.js';

/** A setting the config reads from the environment (a token, a URL) that is not there: what `secrets: 'optional'` forgives. */
export class MissingSecretError extends ConfigError {}

/** A part of the config left out because its secret was not at hand: its key, and the error a command that uses it gives. */
export interface LeftOut {
  key: string;
  reason: string;
}

/**
 * `build()`, or, when `leftOut` is given (a command that runs no tool), undefined with the missing secret recorded
 * there: an operator's shell need not hold every gatekeeper's, API's or Forgejo's token to read receipts or
 * validate (review userW, W9; the principals' tokens had this since userV, V8). Any other error stops the load.
 */
export function orLeftOut<T>(leftOut: LeftOut[] | undefined, build: () => T): T | undefined {
  if (!leftOut) return build();
  try {
    return build();
  } catch (error) {
    if (!(error instanceof MissingSecretError)) throw error;
    leftOut.push({ key: error.key, reason: error.message });
    return undefined;
  }
}
