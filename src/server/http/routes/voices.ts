import type { OpenAPIHono } from '@hono/zod-openapi';
import { VOICES_PATH } from '@agent-tts/contract/limits.js';
import { listVoicesRoute } from '@agent-tts/contract/routes.js';
import type { CatalogVoiceBody } from '@agent-tts/contract/catalog-schemas.js';
import { type AppEnv, metaOf } from '../context.js';
import { answerOtherMethods } from '../create-app.js';

/** GET /api/v1/voices: the public voice catalog (no key), on the catalog's own listener and origin. */
export function registerVoiceRoutes(app: OpenAPIHono<AppEnv>, voices: readonly CatalogVoiceBody[]): void {
  const catalog = { voices: [...voices], count: voices.length };
  app.openapi(listVoicesRoute, (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json({ ...catalog, meta: metaOf(c) }, 200);
  });
  answerOtherMethods(app, VOICES_PATH, ['GET']);
}
