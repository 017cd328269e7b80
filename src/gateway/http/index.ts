// The gateway's HTTP API (express): /v1 routes, webhook, health, metrics, the OpenAPI document served; and the server that runs it.
export { createApp, type AppOptions } from './create-app.js';
export { startServer, type RunningServer, type ServerOptions } from './start-server.js';
export { GatewayMetrics } from './gateway-metrics.js';
export { RescanScheduler } from './rescan-scheduler.js';
