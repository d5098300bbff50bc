import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { html } from 'hono/html';
import type { AppEnv } from '../context.js';
import { DOCS_INIT_JS } from './dashboard-assets.js';
import { pageHeaders } from './dashboard.js';

/** The committed OpenAPI document's folder: `openapi/` at the package root, found from this module (src or dist). */
function openapiDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'openapi');
    if (existsSync(join(candidate, 'openapi.json')) && existsSync(join(dir, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('the committed OpenAPI document (openapi/openapi.json) was not found');
    dir = parent;
  }
}

const SWAGGER_FILES = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const;

/**
 * The API reference: GET /docs renders the committed OpenAPI document with Swagger UI, whose static
 * files are served from the installed `swagger-ui-dist` package (no CDN, no validator badge); the
 * document itself is at /openapi.json and /openapi.yaml. Not part of the API contract.
 */
export function registerDocsRoutes(app: OpenAPIHono<AppEnv>): void {
  const require = createRequire(import.meta.url);
  const cache = new Map<string, Promise<Buffer>>();
  const cached = (path: string) => {
    let content = cache.get(path);
    if (!content) {
      content = readFile(path);
      content.catch(() => cache.delete(path));
      cache.set(path, content);
    }
    return content;
  };
  // Found at the first request, so a missing file answers 404 there instead of stopping the server.
  let docDir: string | undefined;
  const documentFile = (name: string) => join((docDir ??= openapiDir()), name);

  app.get('/openapi.json', async (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.body(new Uint8Array(await cached(documentFile('openapi.json'))), 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });
  app.get('/openapi.yaml', async (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.body(new Uint8Array(await cached(documentFile('openapi.yaml'))), 200, { 'Content-Type': 'application/yaml; charset=utf-8' });
  });

  for (const [file, type] of Object.entries(SWAGGER_FILES)) {
    app.get(`/docs/assets/${file}`, async (c) => {
      const path = require.resolve(`swagger-ui-dist/${file}`);
      c.header('Cache-Control', 'public, max-age=86400');
      c.header('X-Content-Type-Options', 'nosniff');
      return c.body(new Uint8Array(await cached(path)), 200, { 'Content-Type': type });
    });
  }
  app.get('/docs/assets/docs.js', (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(DOCS_INIT_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });

  app.get('/docs', (c) => {
    // Swagger UI sets style attributes and <style> elements at run time; scripts stay 'self' only.
    pageHeaders(c, "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    return c.html(html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference · agent-tts</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <main id="swagger-ui" aria-label="API reference"></main>
    <noscript><p>The API reference needs JavaScript. The document itself is at <a href="/openapi.json">/openapi.json</a> and <a href="/openapi.yaml">/openapi.yaml</a>.</p></noscript>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/docs.js"></script>
  </body>
</html>`);
  });
}
