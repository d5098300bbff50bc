/** The test clocks as objects of the HTTP interface: /sandbox/clocks and /sandbox/clocks/<id>. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { ApiError, invalidRequest, type AppEnv, sendJson, answerOtherMethods } from '@agent-tts/server';
import { moveClock, newClockOptions } from './clock-bodies.js';
import type { SandboxClock } from './clock.js';
import { GLOBAL_CLOCK_ID } from './clocks.js';
import { ClockError, MAX_CLOCKS } from './public.js';

/** A test clock and its keys (sandbox.ts's TestClockRecord; sandbox.ts imports the routes, so they do not import it). */
interface TestClockRecord {
  clock: SandboxClock;
  keys: object;
}

/** The test clocks, as sandbox.ts keeps them (`SandboxCore`). */
export interface TestClockDeps {
  /** The global clock, then the test clocks oldest first. */
  all(): SandboxClock[];
  create(options: { set?: number; freeze?: boolean }): Promise<TestClockRecord | undefined>;
  get(id: string): TestClockRecord | undefined;
  delete(id: string): Promise<boolean>;
  /** The clock of the request at hand: its key's (the global clock for a key not on a test clock, or none). */
  current(): SandboxClock;
}

const clockUrl = (id: string) => `/sandbox/clocks/${id}`;
const describeClock = (clock: SandboxClock) => ({ id: clock.id, ...clock.state(), url: clockUrl(clock.id) });

/**
 * POST|GET /sandbox/clocks, GET|POST|DELETE /sandbox/clocks/<id>: test clocks as objects, each with the
 * keys of its own accounts (clocks.ts). `global` names the global clock (the one of /sandbox/clock).
 */
/** The global clock and its keys, which the test clocks' routes serve as the clock `global`. */
export interface GlobalClock {
  clock: SandboxClock;
  keys: Readonly<Record<string, string>> | object;
}

export function registerClockObjectRoutes(app: OpenAPIHono<AppEnv>, deps: GlobalClock, clocks: TestClockDeps): void {
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
