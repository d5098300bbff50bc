/**
 * Compile-time proof, checked by `npm run typecheck` (never built or run): a handler bound to one of
 * the contract's routes cannot answer a body or a status the route's schemas do not describe. Each
 * `@ts-expect-error` fails the type check the day such an answer compiles.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { getJobRoute, listVoicesRoute, postJobRoute } from '../../../contract/routes.js';
import { type AppEnv, metaOf } from '../context.js';

// biome-ignore lint/correctness/noUnusedVariables: read by the typecheck only, never called
function answersTheContractForbids(app: OpenAPIHono<AppEnv>): void {
  // @ts-expect-error a completed job without audio_url, audio and billing
  app.openapi(getJobRoute, (c) => c.json({ success: true as const, status: 'completed' as const, job_id: 'x', meta: metaOf(c) }, 200));
  // @ts-expect-error a status the route does not define
  app.openapi(postJobRoute, (c) => c.json({ success: true as const, meta: metaOf(c) }, 201));
  // @ts-expect-error a catalog without its count
  app.openapi(listVoicesRoute, (c) => c.json({ voices: [], meta: metaOf(c) }, 200));
}
