import type { Diagnostic } from '../../core/index.js';

/** One item of the `policies/` folder: its name, and whether it is a folder. */
export interface PoliciesItem {
  name: string;
  folder: boolean;
}

// what reads as a policy its author meant to apply: a folder of them, or a policy file named another way
const MEANT_AS_POLICY = /\.(hdlp|ya?ml)$/i;

/**
 * What in `policies/` the layout does not read (review P, P15): a policy is `policies/<name>.hdlp` and nothing else, so
 * `policies/strict/deploy.hdlp`, `policies/deploy.yaml` or `policies/Deploy.HDLP` never applied, and nothing said so. A
 * folder, or a file named like a policy, is an error: under policies/ an error refuses every call until it is moved
 * (an unread deny could let through what it was written to stop). Any other file (a README, a `.gitkeep`) is a warning.
 */
export function strayPolicies(items: readonly PoliciesItem[]): Diagnostic[] {
  const strays: Diagnostic[] = [];
  for (const { name, folder } of items) {
    if (!folder && name.endsWith('.hdlp') && name.length > '.hdlp'.length) continue;
    const file = folder ? `policies/${name}/` : `policies/${name}`;
    const at = { file, line: 1, column: 1, code: 'POLICY_NOT_READ' as const };
    if (folder) strays.push({ ...at, severity: 'error', message: `${file} is a folder, which is not read: policies are read from policies/<name>.hdlp only, so nothing in it applies; move each policy to policies/<name>.hdlp` });
    else if (MEANT_AS_POLICY.test(name)) strays.push({ ...at, severity: 'error', message: `${file} is not read: policies are read from policies/<name>.hdlp only (a lower-case .hdlp), so its rules never apply; rename it to policies/${name.replace(MEANT_AS_POLICY, '')}.hdlp` });
    else strays.push({ ...at, severity: 'warning', message: `${file} is not a policy: only policies/<name>.hdlp files are read` });
  }
  return strays;
}
