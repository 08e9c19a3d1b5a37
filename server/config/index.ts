// Freeway's settings: the table (settings.ts), its reader (load.ts) and start-up's one-line failures.
export { loadConfig, UPLOAD_COPIES, type Config, type LogLevel, type MetricsConfig, type ModelsConfig, type TracingConfig } from './load.ts';
export type { ModelMapping, Size, TrustProxy } from './parse.ts';
export { routingStrategies, type RoutingStrategy } from './settings.ts';
export { cannotStart, listenFailure } from './startup.ts';
