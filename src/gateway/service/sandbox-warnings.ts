import type { SandboxStatus } from '../../sandbox/index.js';

/** What an operator must hear at start about this host's sandbox: each a line, empty when everything holds. */
export function sandboxWarnings(status: SandboxStatus | undefined): string[] {
  const warnings: string[] = [];
  if (!status) return warnings;
  if (status.sandbox === 'off') {
    if (status.mode === 'required') {
      warnings.push(`sandbox: required, but it cannot run here, so every shell tool and gatekeeper exec call fails with SANDBOX_UNAVAILABLE: ${status.reason}`);
    } else {
      warnings.push(`sandbox: off. Local tools run unisolated, as this gateway's user: they can read what it reads (its environment through /proc, its files) and reach any address. ${status.reason}`);
    }
  }
  if (status.containmentReason) warnings.push(`process containment: ${status.containmentReason}`);
  if (status.limits.reason) warnings.push(`resource limits: ${status.limits.reason}`);
  if (status.runAsReason) warnings.push(`run_as: ${status.runAsReason}`);
  return warnings;
}
