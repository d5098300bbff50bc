import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ApiError, type AppEnv, sendJson, answerOtherMethods } from '@agent-tts/server';
import { moveClock } from './clock-bodies.js';
import { type TestClockDeps, registerClockObjectRoutes } from './clock-routes.js';
import type { SandboxClock } from './clock.js';
import type { Journal } from './journal.js';
import { MAGIC_INPUTS } from './outcomes.js';
import { type JournalFilter, MAX_CLOCKS } from './public.js';

export interface SandboxRouteDeps {
  clock: SandboxClock;
  journal: Journal;
  keys: Readonly<Record<string, string>> | object;
  /** Test clocks as objects (`/sandbox/clocks`); without them only the global clock is served. */
  testClocks?: TestClockDeps;
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
