/** Variables a child may inherit from the gateway: enough to find programs and speak the locale, no secrets. */
export const INHERITED_ENVIRONMENT = ['PATH', 'HOME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR'] as const;

const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * The environment of a child process: the allowlist (plus `LC_*` and any `extraNames`) copied from `source`,
 * then `overrides`. Nothing else of the gateway's environment, so none of its secrets, reaches the child.
 */
export function minimalEnvironment(
  overrides: Record<string, string> = {},
  extraNames: readonly string[] = [],
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const names = new Set<string>([...INHERITED_ENVIRONMENT, ...extraNames]);
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && (names.has(name) || name.startsWith('LC_'))) environment[name] = value;
  }
  environment.PATH ??= FALLBACK_PATH;
  return { ...environment, ...overrides };
}
