import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ApiError, invalidRequest } from '../server/domain/errors.js';
import { type AppEnv, sendJson } from '../server/http/context.js';
import { answerOtherMethods } from '../server/http/create-app.js';
import { ClockError, type SandboxClock } from './clock.js';
import type { Journal, JournalFilter } from './journal.js';
import { MAGIC_INPUTS } from './outcomes.js';

export interface SandboxRouteDeps {
  clock: SandboxClock;
  journal: Journal;
  keys: Readonly<Record<string, string>> | object;
}

/** One change of the clock per request. */
const ClockChange = z.union([
  z.object({ advance_seconds: z.number().finite().min(0).max(10 * 365 * 86_400) }).strict(),
  z.object({ freeze: z.boolean() }).strict(),
  z.object({ reset: z.literal(true) }).strict(),
  z.object({ set: z.string().min(1).max(64) }).strict(),
]);
const CLOCK_BODIES = '{"advance_seconds": n}, {"freeze": true}, {"freeze": false}, {"reset": true} or {"set": "<ISO 8601 time, not before the clock>"}';

const JournalQuery = z
  .object({
    method: z.string().regex(/^[A-Za-z]{1,10}$/).optional(),
    path: z.string().max(2048).optional(),
    status: z.string().regex(/^\d{3}$/).transform(Number).optional(),
    key: z.string().regex(/^(tts_)?[0-9a-f]{8}$/).optional(),
    since: z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO 8601 time').optional(),
  })
  .strict();

/** GET /sandbox, GET|POST /sandbox/clock, GET|DELETE /sandbox/requests. */
export function registerSandboxRoutes(app: OpenAPIHono<AppEnv>, deps: SandboxRouteDeps): void {
  const { clock, journal, keys } = deps;

  app.get('/sandbox', (c) =>
    sendJson(c, 200, {
      sandbox: true,
      keys,
      magic_inputs: MAGIC_INPUTS,
      clock: { ...clock.state(), url: '/sandbox/clock' },
      journal: { url: '/sandbox/requests', filters: ['method', 'path', 'status', 'key', 'since'] },
    }),
  );
  answerOtherMethods(app, '/sandbox', ['GET']);

  app.get('/sandbox/clock', (c) => sendJson(c, 200, { ...clock.state() }));
  app.post('/sandbox/clock', async (c) => {
    let raw: unknown;
    try {
      raw = JSON.parse(await c.req.text());
    } catch {
      throw invalidRequest(`The body must be JSON: one of ${CLOCK_BODIES}.`);
    }
    const parsed = ClockChange.safeParse(raw);
    if (!parsed.success) throw invalidRequest(`Expected one of ${CLOCK_BODIES}.`);
    const change = parsed.data;
    try {
      if ('advance_seconds' in change) await clock.advance(change.advance_seconds);
      else if ('freeze' in change) await (change.freeze ? clock.freeze() : clock.unfreeze());
      else if ('reset' in change) await clock.reset();
      else await clock.set(Date.parse(change.set));
    } catch (error) {
      if (error instanceof ClockError) throw invalidRequest(error.message);
      throw error;
    }
    return sendJson(c, 200, { ...clock.state() });
  });
  answerOtherMethods(app, '/sandbox/clock', ['GET', 'POST']);

  app.get('/sandbox/requests', (c) => {
    const parsed = JournalQuery.safeParse(c.req.query());
    if (!parsed.success) {
      throw new ApiError('INVALID_REQUEST', 'Filters: method=<GET|POST…>, path=</v1/…>, status=<3 digits>, key=<tts_ + 8 hex>, since=<ISO 8601 time>.');
    }
    const filter: JournalFilter = parsed.data;
    const requests = journal.list(filter);
    return sendJson(c, 200, { requests, count: requests.length });
  });
  app.delete('/sandbox/requests', (c) => {
    journal.clear();
    return sendJson(c, 200, { cleared: true });
  });
  answerOtherMethods(app, '/sandbox/requests', ['GET', 'DELETE']);
}
