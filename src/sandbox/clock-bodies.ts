/**
 * The bodies of the clock routes: one change of a clock (POST /sandbox/clock, POST /sandbox/clocks/<id>)
 * and the options of a new test clock (POST /sandbox/clocks), each refused with a 400 saying what is allowed.
 */
import { z } from 'zod';
import { BODY_CUT_SHORT_MESSAGE, ClientClosedError, invalidRequest, type AppEnv } from '@agent-tts/server';
import type { Context } from 'hono';
import { MAX_MOVE_SECONDS, type SandboxClock } from './clock.js';
import { ClockError } from './public.js';

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
    const value = fields[0] === undefined ? undefined : (raw as Record<string, unknown>)[fields[0]];
    const got = ` Got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}.`;
    if (fields.length === 1 && fields[0] === 'advance_seconds') return ADVANCE_RULE + got;
    if (fields.length === 1 && fields[0] === 'set') return SET_RULE + got;
    if (fields.length > 1) return `One change per request, not ${fields.length} (${fields.join(', ')}): one of ${CLOCK_BODIES}.`;
  }
  return `Expected one of ${CLOCK_BODIES}.`;
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
export async function moveClock(c: Context<AppEnv>, clock: SandboxClock): Promise<void> {
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
export async function newClockOptions(c: Context<AppEnv>): Promise<{ set?: number; freeze?: boolean }> {
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
