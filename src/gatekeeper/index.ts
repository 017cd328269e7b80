// The gatekeeper: the driver engine serving POST /exec, turning {method, params} into a confined system call.
export { createGatekeeperApp, DEFAULT_BODY_LIMIT_BYTES, type GatekeeperAppOptions } from './app.js';
export { startGatekeeper, type GatekeeperOptions, type RunningGatekeeper } from './start-gatekeeper.js';
export { GATEKEEPER_METHODS, parseExecRequest, runMethod, type ExecRequest } from './methods.js';
export { MAX_READ_BYTES } from './windows.js';
