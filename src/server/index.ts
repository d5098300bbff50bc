/**
 * The embedding API of @agent-tts/server (its "." export): createApi assembles the reference server's
 * API without listening, and the rest is what an embedder (the sandbox) builds on: the ports, the
 * in-process adapters, the configuration, the HTTP helpers an extension's routes answer with, and
 * listening. The speech engine is `@agent-tts/server/synth`, the S3 adapter `@agent-tts/server/s3`.
 * Nothing else of the package may be imported: its modules are not part of its API.
 */
export { type Api, type ApiExtension, createApi, type CreateApiOptions } from './create-api.js';
export type { ApiServices, ComposeOptions, Storage } from './compose.js';
export { type Config, loadConfig } from './config.js';
export { ConfigError } from './config/error.js';
export { CONFIG_VARIABLES } from './config/settings.js';
export { createLogger, type Logger } from './log.js';
export { redactText } from './redact.js';
export { seed, type SeedCounts, writeFixtures } from './seed.js';
// The engine's estimates without the engine (eSpeak, the MP3 encoder, the thread pool), which an
// embedder with its own synthesizer (the sandbox) must not load.
export { Estimator, speechShares } from './synth/estimate.js';
export * from './ports/index.js';

// The in-process adapters of the embedded mode.
export { LocalBlobStorage } from './adapters/local-blob-storage.js';
export { MemoryRateLimiter } from './adapters/memory-rate-limiter.js';
export { MemoryStore } from './adapters/memory-store.js';
export { SqliteStore } from './adapters/sqlite-store.js';

// The domain's parts an embedder drives.
export { AccountAdmin } from './domain/accounts.js';
export { BODY_CUT_SHORT_MESSAGE, ClientClosedError } from './domain/errors.js';
export { type AudioStorage, type AudioWriter, JobFiles, type JobFile, type TimingsFormat } from './domain/job-files.js';
export { type ScheduledSweeps, scheduleSweeps, sweepExpiredJobs } from './domain/retention.js';

// What an extension's middleware and routes answer with, and listening.
export { ApiError, invalidRequest } from './http/api-error.js';
export { type AppEnv, sendJson } from './http/context.js';
export { answerOtherMethods, CLIENT_CLOSED_REQUEST } from './http/create-app.js';
export { closeServer, listen } from './http/listen.js';
export { hostGuard, isLoopbackHost } from './http/middleware/host-guard.js';
