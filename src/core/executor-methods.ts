/** The methods brush-holder's own gatekeeper answers (`POST /exec`); test/core/executor-methods.test.ts keeps them in step with it. */
export const GATEKEEPER_METHOD_NAMES: readonly string[] = ['exec', 'read_file', 'read_bytes', 'write_file', 'list_dir'];

/** The operations of the `git-forgejo` executor; kept in step with `FORGEJO_METHODS` by the same test. */
export const FORGEJO_METHOD_NAMES: readonly string[] = ['read_file', 'list_commits', 'list_tree', 'write_file', 'create_issue'];

/**
 * The text parameters each `git-forgejo` method cannot run without (the repository comes from `forgejo.repo` or the
 * config, never from a parameter): a tool whose `params_schema` does not declare one fails at every call.
 */
export const FORGEJO_METHOD_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  read_file: ['path'],
  list_commits: [],
  list_tree: [],
  write_file: ['path', 'content'],
  create_issue: ['title'],
};
