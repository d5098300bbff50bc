/** Checks that an answer is one of this API: a job body, or JSON at all. Anything else is INVALID_RESPONSE. */
import { AgentTtsError, stripQuery } from './errors.js';
import type { JobStatus } from './types.js';

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const JOB_STATUSES = new Set(['completed', 'processing', 'failed', 'expired']);

export function assertJobBody(data: unknown, response: Response): asserts data is JobStatus {
  if (isObject(data) && typeof data.job_id === 'string' && typeof data.status === 'string' && JOB_STATUSES.has(data.status)) {
    return;
  }
  throw new AgentTtsError({
    code: 'INVALID_RESPONSE',
    message: `HTTP ${response.status} from ${stripQuery(response.url)} is not a job of this API`,
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}

/** A JSON body that failed to parse is the wrong server, not a transport failure: not retried. */
export function invalidJson(error: unknown, url: string): never {
  if (error instanceof SyntaxError) {
    throw new AgentTtsError({ code: 'INVALID_RESPONSE', message: `The answer from ${url} is not JSON`, cause: error });
  }
  throw error;
}
