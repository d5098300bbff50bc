import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ApiError, BODY_CUT_SHORT_MESSAGE, ClientClosedError, invalidRequest } from '../server/domain/errors.js';
import { type AppEnv, sendJson } from '../server/http/context.js';
import { answerOtherMethods } from '../server/http/create-app.js';
import { ClockError, MAX_MOVE_SECONDS, type SandboxClock } from './clock.js';
import type { Journal, JournalFilter } from './journal.js';
import { MAGIC_INPUTS } from './outcomes.js';

export interface SandboxRouteDeps {
  clock: SandboxClock;
  journal: Journal;
  keys: Readonly<Record<string, string>> | object;
}

/** One change of the clock per request. */
const ClockChange = z.union([
  z.object({ advance_seconds: z.number().finite().min(0).max(MAX_MOVE_SECONDS) }).strict(),
  z.object({ freeze: z.boolean() }).strict(),
  z.object({ reset: z.literal(true) }).strict(),
  z.object({ set: z.string().min(1).max(64) }).strict(),
]);
const CLOCK_BODIES = '{"advance_seconds": n}, {"freeze": true}, {"freeze": false}, {"reset": true} or {"set": "<ISO 8601 time, not before the clock>"}';
const ADVANCE_RULE = `advance_seconds must be a number from 0 to ${MAX_MOVE_SECONDS} (10 years in one move); the clock only moves forward.`;
const SET_RULE =
  'set must be an ISO 8601 date-time with a time zone, e.g. "2030-01-01T00:00:00Z" (or a date, "2030-01-01", midnight UTC), not before the clock and at most 10 years after it.';
/** A date, or a date-time with seconds optional and a time zone (Z or ±hh:mm); a year beyond 9999 is written with a sign. */
const ISO_TIME = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** The time a `set` names, in ms since the epoch; an INVALID_REQUEST saying what is allowed otherwise. */
function parseSetTime(value: string): number {
  const match = ISO_TIME.exec(value);
  const at = match ? Date.parse(value) : NaN;
  if (!match || Number.isNaN(at)) throw invalidRequest(`${SET_RULE} Got ${JSON.stringify(value)}.`);
  // Date.parse takes 2030-02-31 for March 3rd.
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const calendar = new Date(0);
  calendar.setUTCFullYear(year, month - 1, day);
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) throw invalidRequest(`${JSON.stringify(value)} is not a date of the calendar. ${SET_RULE}`);
  return at;
}

/** What is wrong with a clock body the schema refused, for the person reading the 400. */
function clockBodyProblem(raw: unknown): string {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const fields = Object.keys(raw);
    const value = (raw as Record<string, unknown>)[fields[0]!];
    const got = ` Got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}.`;
    if (fields.length === 1 && fields[0] === 'advance_seconds') return ADVANCE_RULE + got;
    if (fields.length === 1 && fields[0] === 'set') return SET_RULE + got;
    if (fields.length > 1) return `One change per request, not ${fields.length} (${fields.join(', ')}): one of ${CLOCK_BODIES}.`;
  }
  return `Expected one of ${CLOCK_BODIES}.`;
}

const JournalQuery = z
  .object({
    method: z.string().regex(/^[A-Za-z]{1,10}$/).optional(),
    path: z.string().max(2048).optional(),
    status: z.string().regex(/^\d{3}$/).transform(Number).optional(),
    key: z.string().regex(/^(tts_)?[0-9a-f]{8}$/).optional(),
    since: z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO 8601 time').optional(),
  })
  .strict();

const FILTERS_HELP = 'Filters: method=<GET|POST…>, path=</v1/…>, status=<3 digits>, key=<tts_ + 8 hex>, since=<ISO 8601 time>.';

/** The journal's filters of a request's query, or the 400 that lists them. */
function journalFilter(query: Record<string, string>): JournalFilter {
  const parsed = JournalQuery.safeParse(query);
  if (!parsed.success) throw new ApiError('INVALID_REQUEST', FILTERS_HELP);
  return parsed.data;
}

/** GET /sandbox, GET|POST /sandbox/clock, GET|DELETE /sandbox/requests, GET /sandbox/requests/count and /flags. */
export function registerSandboxRoutes(app: OpenAPIHono<AppEnv>, deps: SandboxRouteDeps): void {
  const { clock, journal, keys } = deps;

  app.get('/sandbox', (c) =>
    sendJson(c, 200, {
      sandbox: true,
      keys,
      magic_inputs: MAGIC_INPUTS,
      clock: { ...clock.state(), url: '/sandbox/clock' },
      journal: {
        url: '/sandbox/requests',
        count_url: '/sandbox/requests/count',
        flags_url: '/sandbox/requests/flags',
        filters: ['method', 'path', 'status', 'key', 'since'],
      },
    }),
  );
  answerOtherMethods(app, '/sandbox', ['GET']);

  app.get('/sandbox/clock', (c) => sendJson(c, 200, { ...clock.state() }));
  app.post('/sandbox/clock', async (c) => {
    let raw: unknown;
    let text: string;
    try {
      text = await c.req.text();
    } catch (error) {
      // A body cut short by a client that went away is the client's doing (499), as on the API's routes.
      if (c.req.raw.signal.aborted) throw new ClientClosedError(BODY_CUT_SHORT_MESSAGE, {}, { cause: error });
      throw error;
    }
    try {
      raw = JSON.parse(text);
    } catch {
      throw invalidRequest(`The body must be JSON: one of ${CLOCK_BODIES}.`);
    }
    const parsed = ClockChange.safeParse(raw);
    if (!parsed.success) throw invalidRequest(clockBodyProblem(raw));
    const change = parsed.data;
    try {
      if ('advance_seconds' in change) await clock.advance(change.advance_seconds);
      else if ('freeze' in change) await (change.freeze ? clock.freeze() : clock.unfreeze());
      else if ('reset' in change) await clock.reset();
      else await clock.set(parseSetTime(change.set));
    } catch (error) {
      if (error instanceof ClockError) throw invalidRequest(error.message);
      throw error;
    }
    return sendJson(c, 200, { ...clock.state() });
  });
  answerOtherMethods(app, '/sandbox/clock', ['GET', 'POST']);

  app.get('/sandbox/requests', (c) => {
    const requests = journal.list(journalFilter(c.req.query()));
    return sendJson(c, 200, { requests, count: requests.length });
  });
  app.get('/sandbox/requests/count', (c) => sendJson(c, 200, { count: journal.count(journalFilter(c.req.query())) }));
  answerOtherMethods(app, '/sandbox/requests/count', ['GET']);
  // Every flag of the requests the filters keep: an empty list is a client that made no mistake the sandbox can see.
  app.get('/sandbox/requests/flags', (c) => {
    const flags = journal.flagged(journalFilter(c.req.query()));
    return sendJson(c, 200, { flags, count: flags.length });
  });
  answerOtherMethods(app, '/sandbox/requests/flags', ['GET']);
  app.delete('/sandbox/requests', (c) => {
    journal.clear();
    return sendJson(c, 200, { cleared: true });
  });
  answerOtherMethods(app, '/sandbox/requests', ['GET', 'DELETE']);
}
