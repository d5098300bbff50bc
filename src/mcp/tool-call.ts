/**
 * One call of the tool: submit the text (or wait for the job of an earlier call), within the call's
 * time, with progress while it waits, answering with the completed job, the job still processing, or the error.
 */
import type { AgentTtsClient } from '@agent-tts/client/client.js';
import type { ClientClock } from '@agent-tts/client/clock.js';
import { AgentTtsError } from '@agent-tts/client/errors.js';
import type { RetryEvent } from '@agent-tts/client/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type CallExtra, type CallProgress, type CallState, notePercent, pacedClock, startProgress } from './call-progress.js';
import type { TtsToolServerOptions } from './options.js';
import { completedResult, processingResult, toolError } from './tool-results.js';
import { type ToolInput, parseToolInput } from './tool-schema.js';

/** What the server keeps across calls: its limits, and per job a call left processing, when the service said to poll it next. */
export interface ToolServerState {
  maxCallMs: number;
  progressIntervalMs: number;
  /** So that a call with that job_id that comes sooner waits until then rather than polling early. */
  nextPollOf: Map<string, number>;
}

/** What a request in flight at the call's deadline still gets (the call then stays below the MCP client's 60 s). */
const IN_FLIGHT_GRACE_MS = 5_000;

/** Ends a call whose time is up; the reason of the abort that stops the client's waits. */
class CallTimeUp extends Error {
  constructor(ms: number) {
    super(`the call's ${Math.round(ms / 1000)} s ran out`);
  }
}

/** A call's own means: its clock, its deadline, its state, and the controller that ends it. */
interface Call {
  clock: ClientClock;
  startedAt: number;
  deadline: number;
  state: CallState;
  /** Aborted when the call's time is up, or with the error to answer when a wait is not to be taken. */
  stop: AbortController;
  progress: CallProgress;
}

/** Answers one call of the tool with these arguments. */
export async function runToolCall(args: unknown, extra: CallExtra, options: TtsToolServerOptions, server: ToolServerState): Promise<CallToolResult> {
  const input = parseToolInput(args);
  if (input instanceof AgentTtsError) return toolError(input, options.redact);
  const client = options.client;
  if (!client) {
    return toolError(
      new AgentTtsError({
        code: 'INVALID_KEY',
        message: 'No API key configured for the agent-tts MCP server: set AGENT_TTS_API_KEY in its environment, or run `agent-tts config set-key`.',
      }),
      options.redact,
    );
  }
  const { maxCallMs, progressIntervalMs } = server;
  const clock = options.clock ?? client.clock;
  const startedAt = clock.now();
  const deadline = startedAt + maxCallMs;
  const state: CallState = { jobId: input.job_id };
  const stop = new AbortController();
  // In real time, for a request in flight (a request takes real time whatever the clock): the call's own
  // deadline is on its clock (pacedClock), and a request begun before it gets IN_FLIGHT_GRACE_MS more to
  // be answered, so that the job's next poll is known from the answer the service did give.
  const timeUp = setTimeout(() => stop.abort(new CallTimeUp(maxCallMs)), maxCallMs + IN_FLIGHT_GRACE_MS);
  const signal = AbortSignal.any([extra.signal, stop.signal]);
  const progress = startProgress(extra, { clock, startedAt, signal, state, intervalMs: progressIntervalMs });
  const call: Call = { clock, startedAt, deadline, state, stop, progress };
  const callClock = pacedClock(clock, {
    deadline,
    intervalMs: progressIntervalMs,
    progress,
    timeUp: () => {
      stop.abort(new CallTimeUp(maxCallMs));
      return stop.signal.reason;
    },
  });
  try {
    const job = await speakOrPoll(client, input, call, { signal, callClock, options, server });
    return completedResult(job, options.redact, input.timestamps === 'word', input.voice);
  } catch (caught) {
    const error = signal.aborted && !extra.signal.aborted ? stop.signal.reason : caught;
    return failureResult(error, client, call, options, server);
  } finally {
    clearTimeout(timeUp);
    progress.end();
    stop.abort(); // ends any wait left behind
  }
}

/** Submits the text, or waits for the job of an earlier call when the input names one. */
async function speakOrPoll(
  client: AgentTtsClient,
  input: ToolInput,
  call: Call,
  run: { signal: AbortSignal; callClock: ClientClock; options: TtsToolServerOptions; server: ToolServerState },
) {
  const { signal, callClock, options, server } = run;
  const { clock, state } = call;
  const onRetry = retryHandler(input, call, options);
  const onProgress = (event: { jobId: string; status: string; percent?: number; nextPollMs?: number; streamUrl?: string }) => {
    const now = clock.now();
    state.jobId = event.jobId;
    if (event.streamUrl) state.streamUrl = event.streamUrl;
    // The job's own time is known when this call submitted it: it began with the call.
    if (event.percent !== undefined) notePercent(state, now, event.percent, event.nextPollMs, input.job_id === undefined ? call.startedAt : undefined);
    state.nextPollAt = event.nextPollMs === undefined ? undefined : now + event.nextPollMs;
    state.waitingUntil = undefined;
    if (event.status === 'processing') call.progress.send();
  };
  const pollAt = input.job_id === undefined ? undefined : server.nextPollOf.get(input.job_id);
  if (input.job_id !== undefined) server.nextPollOf.delete(input.job_id);
  return input.job_id
    ? await client.poll(input.job_id, {
        signal,
        onRetry,
        onProgress,
        clock: callClock,
        initialDelayMs: Math.max(0, (pollAt ?? 0) - clock.now()),
      })
    : await client.speak(
        { text: input.text, voice: input.voice, speed: input.speed, language: input.language, ...(input.timestamps === 'word' ? { timestamps: 'word' } : {}) },
        // A job that fails is answered as it failed; the agent decides whether to call again.
        { signal, onRetry, onProgress, maxResubmits: 0, clock: callClock },
      );
}

/**
 * Told before each retry of the client: every answer of the API that is an error is the call's answer at
 * once (§4.9 step 3), so the call ends with it; only a transport failure (no answer) is retried, and a
 * rate limit waited out when the caller asked (wait_for_rate_limit), each when the wait fits in the
 * call. While it waits, the progress says so.
 */
function retryHandler(input: ToolInput, call: Call, options: TtsToolServerOptions) {
  const { clock, deadline, state, stop } = call;
  return (event: RetryEvent) => {
    const { error, delayMs } = event;
    const rateLimited = error.code === 'RATE_LIMITED';
    const waitAsked = error.code === 'NETWORK_ERROR' || (rateLimited && input.wait_for_rate_limit);
    if (!waitAsked || clock.now() + delayMs > deadline) {
      // Answered now rather than after a wait the caller did not ask for, or that would outlast the call.
      stop.abort(error);
      return;
    }
    state.waitingUntil = clock.now() + delayMs;
    state.waitingFor = rateLimited ? `rate limited (Retry-After ${error.retryAfterSeconds ?? '?'} s)` : `${error.code}`;
    options.log?.(options.redact(`retrying in ${Math.round(delayMs / 1000)} s after ${error.code}: ${error.message}`));
    call.progress.send();
  };
}

/** The answer of a call that did not complete: its job still processing when its time ran out, a timeout, or the error. */
function failureResult(error: unknown, client: AgentTtsClient, call: Call, options: TtsToolServerOptions, server: ToolServerState): CallToolResult {
  const { clock, state } = call;
  const { maxCallMs, nextPollOf } = server;
  if (error instanceof CallTimeUp) {
    if (state.jobId) {
      const nextPollAt = state.nextPollAt ?? clock.now() + 1000;
      const oldest = nextPollOf.keys().next();
      if (nextPollOf.size >= 1000 && !oldest.done) nextPollOf.delete(oldest.value);
      nextPollOf.set(state.jobId, nextPollAt);
      return processingResult(
        { jobId: state.jobId, percent: state.percent, streamUrl: state.streamUrl },
        nextPollAt - clock.now(),
        client,
        maxCallMs,
        options.redact,
      );
    }
    return toolError(
      new AgentTtsError({
        code: 'TIMEOUT',
        message: `No answer from ${client.baseUrl} within ${Math.round(maxCallMs / 1000)} s; nothing is known to have been submitted.`,
      }),
      options.redact,
    );
  }
  options.log?.(options.redact(`text_to_speech failed: ${error instanceof Error ? error.message : String(error)}`));
  return toolError(error, options.redact);
}
