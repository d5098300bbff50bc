import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { API_VERSION } from './limits.js';
import { routes } from './routes.js';

const DESCRIPTION = `Text-to-speech job API. Clients POST text with a voice, speed and language; short texts complete
inside an inline wait of about 10 seconds and return an audio URL, longer ones return a job id to poll.

Every response carries \`meta.request_id\` (a fresh UUID, also sent as \`X-Request-Id\`) and
\`meta.api_version\` (\`${API_VERSION}\`), errors and unknown routes included. Errors use one body:
\`{ success: false, error: { code, message, details? }, meta }\`.

Authentication: \`Authorization: Bearer tts_<public_id>_<secret>\` (8 and 48 hexadecimal characters). A missing
header, a header that is not \`Bearer <key>\`, and a bad or revoked key all answer 401 INVALID_KEY with
\`WWW-Authenticate: Bearer\`. The key is shown in logs and dashboards only as \`tts_<public_id>\`.

Every response to an authenticated request carries \`RateLimit-Policy\` and \`RateLimit\` (IETF draft); a 429
carries \`Retry-After\` in whole seconds (at least 1).

CORS: browser requests are allowed from the deployment's first-party origin and its preview origins
(configured); preflight allows GET and POST with the headers Authorization, Content-Type, Idempotency-Key
and User-Agent, and exposes Retry-After, RateLimit, RateLimit-Policy, X-Request-Id and Idempotent-Replayed.
Other origins receive no CORS headers.

Unknown paths answer 404 NOT_FOUND, and known paths with another method 405 (code INVALID_REQUEST) with
\`Allow\`, both with the error body. An OPTIONS request that is not a CORS preflight answers 204 with \`Allow\`.`;

/**
 * Builds the OpenAPI 3.1 document from the contract's routes (or the routes a running server
 * registered, to prove they are the same). Deterministic: same contract, same document.
 */
export function buildOpenApiDocument(routeConfigs: readonly RouteConfig[] = routes): Record<string, unknown> {
  const app = new OpenAPIHono();
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'tts_<public_id>_<secret>',
    description: 'API key in the form tts_<8 hex public id>_<48 hex secret>.',
  });
  for (const route of routeConfigs) app.openAPIRegistry.registerPath(route);
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Text-to-Speech Job API',
      version: API_VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
      contact: { name: 'agent-tts', url: 'https://github.com/agent-tts/agent-tts' },
    },
    servers: [
      {
        url: 'https://tts.example.com',
        description: 'Production deployment: replace with its base URL. The reference server listens on http://127.0.0.1:8080 by default (`npm start`).',
        'x-internal': false,
      } as never,
    ],
    tags: [
      { name: 'Jobs', description: 'Submit text and poll jobs.' },
      { name: 'Audio', description: 'Signed audio downloads.' },
      { name: 'Voices', description: 'Public voice catalog, on its own origin.' },
    ],
    security: [{ bearerAuth: [] }],
  });
  return JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
}
