/**
 * The settings the Redis adapters take: read by the configuration (config/distributed.ts, the one
 * reader of the environment) and passed in by compose.ts.
 */
export type { DistributedSettings } from '../../config.js';
