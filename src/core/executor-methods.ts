/** The methods brush-holder's own gatekeeper answers (`POST /exec`); test/core/executor-methods.test.ts keeps them in step with it. */
export const GATEKEEPER_METHOD_NAMES: readonly string[] = ['exec', 'read_file', 'read_bytes', 'write_file', 'list_dir'];

/** The operations of the `git-forgejo` executor; kept in step with `FORGEJO_METHODS` by the same test. */
export const FORGEJO_METHOD_NAMES: readonly string[] = ['read_file', 'list_commits', 'list_tree', 'write_file', 'create_issue'];
