import type { components } from './openapi-types.js';

/** Types of the API's bodies, taken from the generated OpenAPI types so they cannot drift. */
type Schemas = components['schemas'];

export type CompletedJob = Schemas['CompletedJob'];
export type ProcessingJob = Schemas['ProcessingJob'];
export type FailedJob = Schemas['FailedJob'];
export type ExpiredJob = Schemas['ExpiredJob'];
export type JobStatus = Schemas['JobStatus'];
export type ErrorBody = Schemas['ErrorBody'];
export type CatalogVoice = Schemas['CatalogVoice'];
export type VoiceCatalog = Schemas['VoiceCatalog'];
export type LanguageCode = Schemas['LanguageCode'];
/** On a completed job submitted with `timestamps: "word"`: signed URLs of its word timings (JSON), WebVTT and SRT. */
export type Timings = Schemas['Timings'];
/** The word timings of a job, as served at `timings.json_url`. */
export type WordTimingsFile = Schemas['WordTimingsFile'];
export type WordTiming = Schemas['WordTiming'];
export type CaptionCue = Schemas['CaptionCue'];

/** What `submit` and `speak` take: only `text` is required; the service applies its defaults. */
export interface SpeechRequest {
  text: string;
  voice?: string;
  /** 0.5 to 1.5; the service's default is 1.2. */
  speed?: number;
  /** A §4.5 code, used by st_* voices. */
  language?: LanguageCode | (string & {});
  /**
   * `word` asks for word timings and captions (an extension beyond the base API): the completed job
   * then carries `timings`, whose files `downloadCaptions` fetches. `none` or absent asks for none.
   */
  timestamps?: Schemas['Timestamps'];
}

/** One report while a job is being waited for. */
export interface ProgressEvent {
  jobId: string;
  status: 'processing' | 'completed';
  /** 0–100, when the service reports it. */
  percent?: number;
  /** Milliseconds since the request was submitted (or since polling began, for `poll`). */
  elapsedMs: number;
  /** Milliseconds until the next poll; undefined once completed, or when the timeout ends the wait. */
  nextPollMs?: number;
  /**
   * While processing, the job's `stream_url` in that answer, when the service offers it (an extension:
   * docs/api-rules.md#streaming-audio): the audio as it is made, for a player or `stream()`.
   */
  streamUrl?: string;
  /** GET requests made so far. */
  polls: number;
}

/** Told before each automatic retry, so a tool can say why it is waiting. */
export interface RetryEvent {
  /** The attempt that failed, counted from 1. */
  attempt: number;
  delayMs: number;
  error: import('./errors.js').AgentTtsError;
  /** The Idempotency-Key the next attempt will send (POST only). */
  idempotencyKey?: string;
  method: 'GET' | 'POST';
}
