/**
 * Typed client of the text-to-speech job API. Runs in Node 20+ and browsers; Node-only file helpers
 * are in `./node.js`.
 */
export { AgentTtsClient, DEFAULT_BASE_URL } from './client.js';
export type { AgentTtsClientOptions, AudioDownload, CallOptions, SpeakOptions, SubmitOptions, SubmitResult } from './options.js';
export type { CaptionFormat } from './signed-download.js';
export type { ResponseInfo, SpeakResult, WithResponse } from './response.js';
export {
  AgentTtsError,
  CLIENT_ERROR_ACTIONS,
  isAgentTtsError,
  type AgentTtsErrorCode,
  type ClientErrorCode,
  type RateLimitInfo,
} from './errors.js';
export { parseRateLimit, parseRateLimitPolicy, readRateLimitHeaders, RATELIMIT_DRAFT } from '../contract/ratelimit-headers.js';
// The API's path and request limits, and the agent tool's defaults (spec §4.9), for callers that check input
// before sending it (the agent tool among them).
export { API_PATH, LIMITS } from '../contract/limits.js';
export { AGENT_TOOL_DEFAULT_VOICE, DEFAULT_SUPERTONIC_LANGUAGE } from '../contract/voices.js';
export { systemClock, type ClientClock } from './clock.js';
export { DEFAULT_POLL_TIMEOUT_MS, type PollOptions } from './poll.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export { CAPTION_FORMATS, type JobWithTimings } from './signed-download.js';
export type { StreamableJob } from './stream.js';
export type {
  CaptionCue,
  CatalogVoice,
  CompletedJob,
  ErrorBody,
  ExpiredJob,
  FailedJob,
  JobStatus,
  LanguageCode,
  ProcessingJob,
  ProgressEvent,
  RetryEvent,
  SpeechRequest,
  Timings,
  VoiceCatalog,
  WordTiming,
  WordTimingsFile,
} from './types.js';
export type { paths } from './openapi-types.js';
export { CLIENT_VERSION } from './version.js';
