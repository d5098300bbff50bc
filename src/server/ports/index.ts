/**
 * Ports of the reference server: what the domain needs from the outside world. The embedded default
 * implements them with SQLite, an in-process rate limiter and queue and the local disk; the distributed
 * mode with Redis and BullMQ. One contract test suite per port runs against every adapter.
 */
export * from './accounts.js';
export * from './audio-spool.js';
export * from './blob-storage.js';
export * from './clock.js';
export * from './jobs.js';
export * from './live-audio.js';
export * from './plans.js';
export * from './queue.js';
export * from './rate-limiter.js';
export * from './sessions.js';
export * from './store.js';
export * from './synthesis.js';
