/** The options of the MCP server, and the defaults of a call's time limit and progress pace. */
import type { AgentTtsClient } from '@agent-tts/client/client.js';
import type { ClientClock } from '@agent-tts/client/clock.js';

/**
 * The longest a call keeps its request open: below the 60 s an MCP client waits by default (the
 * official SDK's DEFAULT_REQUEST_TIMEOUT_MSEC, which progress does not extend unless the client asks
 * for resetTimeoutOnProgress). Rate-limit waits and polling both come out of it.
 */
export const DEFAULT_MAX_CALL_MS = 45_000;
/** How often a call that is waiting tells the client so, when the request carries a progressToken. */
export const DEFAULT_PROGRESS_INTERVAL_MS = 2_000;

export interface TtsToolServerOptions {
  /** Undefined when no API key is configured: every call then answers with that error. */
  client?: AgentTtsClient;
  /** Removes secrets from any text sent to the agent. */
  redact: (text: string) => string;
  /** Diagnostics; stdout belongs to the protocol, so this must write elsewhere (stderr). */
  log?: (line: string) => void;
  /** Ends the session (Ctrl-C in a terminal). */
  signal?: AbortSignal;
  /** The longest one call waits (for a rate limit and for its job) before answering. Default DEFAULT_MAX_CALL_MS. */
  maxCallMs?: number;
  /**
   * Interval of progress notifications while a call waits. Default DEFAULT_PROGRESS_INTERVAL_MS; at most
   * 2.5 s keeps every silence of a call under 5 s.
   */
  progressIntervalMs?: number;
  /**
   * What a call waits in (a rate-limit wait, the waits between polls) and measures its time with (its
   * `maxCallMs`, progress, `retry_after_seconds` of a processing answer). Default: the client's clock
   * (systemClock unless the client was given one). With the sandbox's `sandbox.clock.client`, a call's
   * waits move the sandbox clock; its waits are slept in pieces of at most `progressIntervalMs`, with a
   * progress notification between them, so the notifications keep their pace on that clock too.
   */
  clock?: ClientClock;
}
