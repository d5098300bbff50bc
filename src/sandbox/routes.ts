import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ApiError, BODY_CUT_SHORT_MESSAGE, ClientClosedError, invalidRequest } from '@agent-tts/server/domain/errors.js';
import { type AppEnv, sendJson } from '@agent-tts/server/http/context.js';
import { answerOtherMethods } from '@agent-tts/server/http/create-app.js';
import type { Context } from 'hono';
import { ClockError, MAX_MOVE_SECONDS, type SandboxClock } from './clock.js';
import { GLOBAL_CLOCK_ID, MAX_CLOCKS } from './clocks.js';
import type { Journal, JournalFilter } from './journal.js';
import { MAGIC_INPUTS } from './outcomes.js';

/** A test clock and its keys (sandbox.ts's TestClockRecord, which imports this module). */
interface TestClockRecord {
  clock: SandboxClock;
  keys: object;
}

/** The test clocks, as sandbox.ts keeps them (`SandboxCore`). */
interface TestClockDeps {
  /** The global clock, then the test clocks oldest first. */
  all(): SandboxClock[];
  create(options: { set?: number; freeze?: boolean }): Promise<TestClockRecord | undefined>;
  get(id: string): TestClockRecord | undefined;
  delete(id: string): Promise<boolean>;
  /** The clock of the request at hand: its key's (the global clock for a key not on a test clock, or none). */
  current(): SandboxClock;
}

export interface SandboxRouteDeps {
  clock: SandboxClock;
  journal: Journal;
  keys: Readonly<Record<string, string>> | object;
  /** Test clocks as objects (`/sandbox/clocks`); without them only the global clock is served. */
  testClocks?: TestClockDeps;
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
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day)
    throw invalidRequest(`${JSON.stringify(value)} is not a date of the calendar. ${SET_RULE}`);
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
    method: z
      .string()
      .regex(/^[A-Za-z]{1,10}$/)
      .optional(),
    path: z.string().max(2048).optional(),
    status: z
      .string()
      .regex(/^\d{3}$/)
      .transform(Number)
      .optional(),
    key: z
      .string()
      .regex(/^(tts_)?[0-9a-f]{8}$/)
      .optional(),
    since: z
      .string()
      .refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO 8601 time')
      .optional(),
    clock: z
      .string()
      .regex(/^(global|clk_[0-9a-f]{24})$/)
      .optional(),
  })
  .strict();

const FILTERS_HELP =
  'Filters: method=<GET|POST…>, path=</v1/…>, status=<3 digits>, key=<tts_ + 8 hex>, since=<ISO 8601 time>, clock=<global or clk_ + 24 hex>.';

/** The journal's filters of a request's query, or the 400 that lists them. */
function journalFilter(query: Record<string, string>): JournalFilter {
  const parsed = JournalQuery.safeParse(query);
  if (!parsed.success) throw new ApiError('INVALID_REQUEST', FILTERS_HELP);
  return parsed.data;
}

/** The request's body as text; a body cut short by a client that went away is the client's doing (499), as on the API's routes. */
async function bodyText(c: Context<AppEnv>): Promise<string> {
  try {
    return await c.req.text();
  } catch (error) {
    if (c.req.raw.signal.aborted) throw new ClientClosedError(BODY_CUT_SHORT_MESSAGE, {}, { cause: error });
    throw error;
  }
}

/** The body parsed as JSON, or the 400 that says which bodies are allowed. */
function parseJson(text: string, allowed: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest(`The body must be JSON: ${allowed}.`);
  }
}

/** Applies the one change a clock body asks for (POST /sandbox/clock, POST /sandbox/clocks/<id>), or answers 400 saying what is allowed. */
async function moveClock(c: Context<AppEnv>, clock: SandboxClock): Promise<void> {
  const raw = parseJson(await bodyText(c), `one of ${CLOCK_BODIES}`);
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
}

/** The body of POST /sandbox/clocks: both fields optional, none (or no body) for a clock at real time, running. */
const NewClock = z.object({ set: z.string().min(1).max(64).optional(), freeze: z.boolean().optional() }).strict();
const NEW_CLOCK_BODIES = 'no body, {}, {"set": "<ISO 8601 time, not before real time>"}, {"freeze": true}, or both';

/** The options of a new clock from POST /sandbox/clocks's body, or the 400 that says what is allowed. */
async function newClockOptions(c: Context<AppEnv>): Promise<{ set?: number; freeze?: boolean }> {
  const text = await bodyText(c);
  if (text.trim() === '') return {};
  const raw = parseJson(text, NEW_CLOCK_BODIES);
  const parsed = NewClock.safeParse(raw);
  if (!parsed.success) {
    const fields = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
    const unknown = fields ? Object.keys(fields).filter((f) => f !== 'set' && f !== 'freeze') : [];
    const shown = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v));
    if (unknown.length > 0)
      throw invalidRequest(`A new clock takes "set" and "freeze", not ${unknown.map((f) => JSON.stringify(f)).join(', ')}: ${NEW_CLOCK_BODIES}.`);
    if (fields && 'set' in fields && typeof fields.set !== 'string') throw invalidRequest(`${SET_RULE} Got ${shown(fields.set)}.`);
    if (fields && 'freeze' in fields && typeof fields.freeze !== 'boolean') throw invalidRequest(`freeze must be true or false. Got ${shown(fields.freeze)}.`);
    throw invalidRequest(`Expected ${NEW_CLOCK_BODIES}.`);
  }
  return {
    ...(parsed.data.set === undefined ? {} : { set: parseSetTime(parsed.data.set) }),
    ...(parsed.data.freeze === undefined ? {} : { freeze: parsed.data.freeze }),
  };
}

const clockUrl = (id: string) => `/sandbox/clocks/${id}`;
const describeClock = (clock: SandboxClock) => ({ id: clock.id, ...clock.state(), url: clockUrl(clock.id) });

/**
 * POST|GET /sandbox/clocks, GET|POST|DELETE /sandbox/clocks/<id>: test clocks as objects, each with the
 * keys of its own accounts (clocks.ts). `global` names the global clock (the one of /sandbox/clock).
 */
function registerClockObjectRoutes(app: OpenAPIHono<AppEnv>, deps: SandboxRouteDeps, clocks: TestClockDeps): void {
  const unknownClock = (id: string) =>
    new ApiError(
      'NOT_FOUND',
      `No test clock ${JSON.stringify(id.slice(0, 64))} in this sandbox: a test clock lives until it is deleted or the sandbox stops (a clock of another sandbox run is not here). ` +
        'Ids look like clk_ followed by 24 hex digits, or global; GET /sandbox/clocks lists them and POST /sandbox/clocks makes one.',
    );
  /** The clock named in the path and its keys (the global clock's are the sandbox's own), or the 404. */
  const named = (id: string): { clock: SandboxClock; keys: object } => {
    if (id === GLOBAL_CLOCK_ID) return { clock: deps.clock, keys: deps.keys };
    const found = clocks.get(id);
    if (!found) throw unknownClock(id);
    return found;
  };

  app.post('/sandbox/clocks', async (c) => {
    const options = await newClockOptions(c);
    let made: TestClockRecord | undefined;
    try {
      made = await clocks.create(options);
    } catch (error) {
      if (error instanceof ClockError) throw invalidRequest(error.message);
      throw error;
    }
    if (!made) {
      throw new ApiError(
        'INVALID_REQUEST',
        `This sandbox already holds ${MAX_CLOCKS} test clocks, the most it keeps: delete the clocks of finished tests (DELETE /sandbox/clocks/<id>) before making more.`,
        undefined,
        {},
        409,
      );
    }
    c.header('Location', clockUrl(made.clock.id));
    return sendJson(c, 201, { ...describeClock(made.clock), keys: made.keys });
  });
  app.get('/sandbox/clocks', (c) => {
    const all = clocks.all().map(describeClock);
    return sendJson(c, 200, { clocks: all, count: all.length - 1, max: MAX_CLOCKS });
  });
  answerOtherMethods(app, '/sandbox/clocks', ['GET', 'POST']);

  // The clock of the key in the request's Authorization header, which that key's requests and jobs are
  // on: what a client (the CLI's --sandbox-clock) advances to make its own jobs due. Without its keys.
  app.get('/sandbox/clocks/mine', (c) => sendJson(c, 200, describeClock(clocks.current())));
  answerOtherMethods(app, '/sandbox/clocks/mine', ['GET']);
  app.get('/sandbox/clocks/:id', (c) => {
    const { clock, keys } = named(c.req.param('id'));
    return sendJson(c, 200, { ...describeClock(clock), keys });
  });
  app.post('/sandbox/clocks/:id', async (c) => {
    const { clock } = named(c.req.param('id'));
    await moveClock(c, clock);
    return sendJson(c, 200, describeClock(clock));
  });
  app.delete('/sandbox/clocks/:id', async (c) => {
    const id = c.req.param('id');
    if (id === GLOBAL_CLOCK_ID) {
      throw invalidRequest(
        'The global clock cannot be deleted: it is the clock of the sandbox\'s own keys. Return it to real time with POST /sandbox/clock {"reset": true}.',
      );
    }
    if (!(await clocks.delete(id))) throw unknownClock(id);
    return sendJson(c, 200, { id, deleted: true });
  });
  answerOtherMethods(app, '/sandbox/clocks/:id', ['GET', 'POST', 'DELETE']);
}

/** GET /sandbox, GET|POST /sandbox/clock, /sandbox/clocks(/<id>), GET|DELETE /sandbox/requests, GET /sandbox/requests/count and /flags. */
export function registerSandboxRoutes(app: OpenAPIHono<AppEnv>, deps: SandboxRouteDeps): void {
  const { clock, journal, keys } = deps;

  app.get('/sandbox', (c) =>
    sendJson(c, 200, {
      sandbox: true,
      keys,
      magic_inputs: MAGIC_INPUTS,
      clock: { ...clock.state(), url: '/sandbox/clock' },
      ...(deps.testClocks
        ? {
            // Test clocks as objects: each with fresh keys on accounts of its own, its own time, windows and months.
            clocks: {
              url: '/sandbox/clocks',
              count: deps.testClocks.all().length - 1,
              max: MAX_CLOCKS,
              create: 'POST /sandbox/clocks {"set"?: ISO time, "freeze"?: bool}',
            },
          }
        : {}),
      journal: {
        url: '/sandbox/requests',
        count_url: '/sandbox/requests/count',
        flags_url: '/sandbox/requests/flags',
        filters: ['method', 'path', 'status', 'key', 'since', 'clock'],
      },
    }),
  );
  answerOtherMethods(app, '/sandbox', ['GET']);

  app.get('/sandbox/clock', (c) => sendJson(c, 200, { ...clock.state() }));
  app.post('/sandbox/clock', async (c) => {
    await moveClock(c, clock);
    return sendJson(c, 200, { ...clock.state() });
  });
  answerOtherMethods(app, '/sandbox/clock', ['GET', 'POST']);
  if (deps.testClocks) registerClockObjectRoutes(app, deps, deps.testClocks);

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
