/** Why a call failed, as a literal code every surface (HTTP, CLI, MCP) can branch on. */
export type ErrorCode =
  /** no tool of that name in the index */
  | 'TOOL_NOT_FOUND'
  /** params do not satisfy the tool's schema */
  | 'INVALID_PARAMS'
  /** the tool requires confirmation and none was given */
  | 'CONFIRMATION_REQUIRED'
  /** the confirmation token is unknown, used, expired, or bound to other params or another commit */
  | 'CONFIRMATION_INVALID'
  /** a policy rule, an approver or the human at an MCP client refused the call: nothing ran */
  | 'DENIED'
  /** the call waited for approval and no one decided in time: nothing ran */
  | 'EXPIRED'
  /** the process ran and exited with a non-zero status */
  | 'NONZERO_EXIT'
  /** the process was ended by a signal it did not ask for */
  | 'KILLED_BY_SIGNAL'
  /** the deadline passed; the process tree was killed */
  | 'TIMEOUT'
  /** the caller gave up (its abort signal fired; the process tree was killed), or its approval request was cancelled (nothing ran), or the gateway process running its approved call stopped before storing the receipt (interrupted: it may have run) */
  | 'CANCELLED'
  /** the process could not be started */
  | 'SPAWN_FAILED'
  /** the process hit a resource limit (memory, processes, CPU seconds, file size); `resource_limit` names it */
  | 'RESOURCE_LIMIT'
  /** the sandbox could not be set up for this run (bubblewrap's own error is in `error`); the tool did not start */
  | 'SANDBOX_FAILED'
  /** the gateway's `sandbox: required` refuses to run a local tool because the sandbox cannot run here */
  | 'SANDBOX_UNAVAILABLE'
  /** the remote endpoint could not be reached */
  | 'CONNECTION_FAILED'
  /** the MCP server answered with an error: a tool result marked `isError`, or a JSON-RPC error; its raw text is in `error` */
  | 'MCP_ERROR'
  /** the remote endpoint answered with a non-2xx status */
  | 'HTTP_ERROR'
  /** the definition or configuration does not allow this call to be built */
  | 'EXECUTOR_MISCONFIGURED'
  /** a path left the configured root */
  | 'PATH_OUTSIDE_ROOT'
  /** a file system call failed (missing file, not a folder, no permission); the raw errno message is in `error` */
  | 'IO_ERROR'
  /** an unexpected exception inside the gateway */
  | 'INTERNAL_ERROR';
