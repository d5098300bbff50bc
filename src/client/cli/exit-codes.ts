import type { AgentTtsErrorCode } from '../errors.js';

/**
 * Exit codes of `agent-tts`, one per class of failure, so scripts can branch without parsing text.
 * Documented in `agent-tts --help` and the README; changing a number breaks scripts.
 */
export const EXIT = {
  OK: 0,
  /** A fault of the tool itself (a bug): reported without a stack trace. */
  UNEXPECTED: 1,
  /** Bad command line: unknown flag, missing argument, malformed value, no text. */
  USAGE: 2,
  /** INVALID_KEY, INACTIVE_SUBSCRIPTION, NO_API_ACCESS, or no API key configured. */
  AUTH: 3,
  RATE_LIMITED: 4,
  /** USAGE_LIMIT_EXCEEDED: monthly minutes used up. */
  USAGE_LIMIT: 5,
  /** INVALID_REQUEST, TEXT_TOO_LONG. */
  INVALID_REQUEST: 6,
  /** NOT_FOUND, FILE_EXPIRED. */
  NOT_FOUND: 7,
  /** TTS_PROVIDER_ERROR, INTERNAL_ERROR, or an answer that is not this API's. */
  SERVER: 8,
  /** The service could not be reached. */
  NETWORK: 9,
  /** The job was still processing when --timeout ran out; it may still finish. */
  TIMEOUT: 10,
  /** A local file could not be read or written (the text file, the audio output, the config). */
  LOCAL_FILE: 11,
  /** --captions or --timings: the completed job carries no word timings (the service does not offer them). */
  NO_TIMINGS: 12,
  /** Interrupted (Ctrl-C). */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const BY_CODE: Record<AgentTtsErrorCode, ExitCode> = {
  INVALID_KEY: EXIT.AUTH,
  INACTIVE_SUBSCRIPTION: EXIT.AUTH,
  NO_API_ACCESS: EXIT.AUTH,
  RATE_LIMITED: EXIT.RATE_LIMITED,
  USAGE_LIMIT_EXCEEDED: EXIT.USAGE_LIMIT,
  INVALID_REQUEST: EXIT.INVALID_REQUEST,
  TEXT_TOO_LONG: EXIT.INVALID_REQUEST,
  NOT_FOUND: EXIT.NOT_FOUND,
  FILE_EXPIRED: EXIT.NOT_FOUND,
  TTS_PROVIDER_ERROR: EXIT.SERVER,
  INTERNAL_ERROR: EXIT.SERVER,
  INVALID_RESPONSE: EXIT.SERVER,
  NETWORK_ERROR: EXIT.NETWORK,
  TIMEOUT: EXIT.TIMEOUT,
  NO_TIMINGS: EXIT.NO_TIMINGS,
  ABORTED: EXIT.INTERRUPTED,
};

export function exitCodeFor(code: AgentTtsErrorCode): ExitCode {
  return BY_CODE[code];
}

/** The table as shown by `agent-tts --help`. */
export const EXIT_CODE_HELP = `Exit codes:
  0    success
  1    unexpected fault of the tool
  2    usage: bad flags or arguments, no text
  3    authentication: INVALID_KEY, INACTIVE_SUBSCRIPTION, NO_API_ACCESS, or no API key configured
  4    RATE_LIMITED (wait the Retry-After seconds)
  5    USAGE_LIMIT_EXCEEDED (monthly minutes used up)
  6    INVALID_REQUEST, TEXT_TOO_LONG
  7    NOT_FOUND, FILE_EXPIRED
  8    TTS_PROVIDER_ERROR, INTERNAL_ERROR, or an answer that is not this API's
  9    network: the service could not be reached
  10   timeout: the job was still processing when --timeout ran out
  11   a local file could not be read or written
  12   --captions/--timings: the service returned no word timings (the audio was saved)
  130  interrupted`;
