import { FORGEJO_METHOD_NAMES, GATEKEEPER_METHOD_NAMES } from '../core/index.js';
import type { SchemaProblem } from './shape-checker.js';

/**
 * A `method` its executor cannot run, at the field: for `git-forgejo` an error (every call fails
 * EXECUTOR_MISCONFIGURED); for `gatekeeper` a warning, since a gatekeeper other than brush-holder's may answer more
 * methods, where brush-holder's answers UNKNOWN_METHOD.
 */
export function checkExecutorMethod(value: Record<string, unknown>): Array<SchemaProblem & { severity: 'error' | 'warning' }> {
  const method = value.method;
  if (typeof method !== 'string') return [];
  if (value.executor === 'git-forgejo' && !FORGEJO_METHOD_NAMES.includes(method)) {
    return [{ path: ['method'], atKey: false, severity: 'error', message: `git-forgejo has no method '${method}': every call would fail; use one of: ${FORGEJO_METHOD_NAMES.join(', ')}` }];
  }
  if (value.executor === 'gatekeeper' && !GATEKEEPER_METHOD_NAMES.includes(method)) {
    return [{ path: ['method'], atKey: false, severity: 'warning', message: `brush-holder's gatekeeper has no method '${method}' (it answers UNKNOWN_METHOD): use one of ${GATEKEEPER_METHOD_NAMES.join(', ')}, unless this tool's gatekeeper is another program that has it` }];
  }
  return [];
}
