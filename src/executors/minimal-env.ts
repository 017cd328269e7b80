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

// Variables through which a value is read as code or picks the program: a parameter may never fill them.
const CODE_BEARING = /^(PATH|IFS|ENV|BASH_ENV|PS4|SHELLOPTS|BASHOPTS|NODE_OPTIONS|LD_.*|DYLD_.*)$/;

/** Whether a variable is one a parameter may not set, because a shell or loader would run its value. */
export function isCodeBearingVariable(name: string): boolean {
  return CODE_BEARING.test(name);
}
