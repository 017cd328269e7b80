// Gateway configuration: the YAML file (schemas/config.schema.json), the environment, and flags, resolved once at start.
export { defaultDataDir, loadConfig, repositoryOptions } from './load-config.js';
export { principalTokenVariable } from './config-sections.js';
export { logLevel, sandboxMode, variable, wholeNumber } from './config-values.js';
export { ConfigError, type ConfigOverrides, type GatewayConfig, type NotifyTarget } from './gateway-config.js';
export { CONFIG_SCHEMA_URL, DEFAULT_REPOSITORY, OWN_FOLDERS, PACKAGE_ROOT } from './package-root.js';
export { configuredTargets, missingTargetSecret, unknownTarget, unknownTargetWarnings, type ConfiguredTargets } from './target-names.js';
