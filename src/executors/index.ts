// The executors (shell, gatekeeper client, hldp-api, git-forgejo) and the constraint runner they share.
export { execute } from './execute.js';
export { unconfiguredTarget } from './target-check.js';
export { secretsOf } from './execution-context.js';
export type {
  ApiTarget,
  ExecutionContext,
  ForgejoConfig,
  GatekeeperTarget,
  McpCallOptions,
  McpCallOutcome,
  McpServers,
  McpToolAnswer,
  ShellConfig,
} from './execution-context.js';
export type { Params } from './params.js';
export { runProcess, KILL_GRACE_MS, type Isolation, type ProcessSpec } from './run-process.js';
export { BoundedOutput, boundBytes, cutMarker, type OutputEncoding, type RenderedOutput } from './bounded-output.js';
export { startDeadline, type Deadline, type StopReason } from './deadline.js';
export { minimalEnvironment } from './minimal-env.js';
export { isHiddenPath, resolveInsideRoot, type ResolveOptions, type RootPath } from './root-path.js';
export { openInsideRoot, pathOfHandle, type OpenInsideRootOptions } from './root-files.js';
export { describeError, elapsedSince, failedResult, succeededResult } from './execution-result.js';
export { redactSecrets, redactValue, REDACTED, secretsIn } from './redact.js';
export { redactUrl } from './http-call.js';
export { apiUrlVariable } from './hldp-api-executor.js';
export { fillTemplate } from './argv-template.js';
export { GATEKEEPER_SLACK_MS } from './gatekeeper-executor.js';
export { CANCEL_GRACE_MS, RUN_ID_HEADER } from './gatekeeper-cancel.js';
export { BYTES_PER_ROW, bytesHeader, dumpRow, MAX_READ_BYTES } from './hex-dump.js';
