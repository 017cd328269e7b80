// Gateway configuration: the YAML file (schemas/config.schema.json), the environment, and flags, resolved once at start.
export { loadConfig, repositoryOptions, variable } from './load-config.js';
export { ConfigError, type ConfigOverrides, type GatewayConfig } from './gateway-config.js';
export { CONFIG_SCHEMA_URL, DEFAULT_REPOSITORY, PACKAGE_ROOT, RECEIPT_SCHEMA_URL } from './package-root.js';
