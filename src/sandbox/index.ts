// Process isolation: bubblewrap, PID namespaces and resource limits for every local process a tool starts.
export { createSandbox, processContainment, type SandboxOptions } from './create-sandbox.js';
export { declaredPath } from './bubblewrap-arguments.js';
export { declaredPathRefusal, type DeclaredPathRules } from './declared-path-refusal.js';
export { runAsHome, runAsSettingProblem } from './run-as.js';
export { RunAsFiles, type RunAsOpenOptions } from './run-as-files.js';
export { workspaceConflict } from './workspace-rules.js';
export { writeRefusal } from './write-refusal.js';
export { decodeStatus } from './exit-status.js';
export { closePassed, planStdio } from './passed-descriptors.js';
export { limitHit, type LimitEvidence } from './resource-limits.js';
export {
  SANDBOX_MODES,
  type FileAccess,
  type Launch,
  type LaunchEnding,
  type LaunchOutcome,
  type LaunchPlan,
  type LaunchRequest,
  type LimitsStatus,
  type Sandbox,
  type SandboxMode,
  type SandboxStatus,
} from './sandbox.js';
export { sandboxHealth } from './sandbox-status.js';
