import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { html } from 'hono/html';
import { API_PATH } from '@agent-tts/contract/limits.js';
import { IDEMPOTENCY_KEY_EXAMPLE } from '@agent-tts/contract/parameter-schemas.js';
import type { AppEnv } from '../context.js';
import { pageHeaders } from './dashboard/respond.js';

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

/**
 * The API reference page's initializer (served as /docs/assets/docs.js: the page has no inline script).
 * Swagger UI reads the page's copy of the document, whose first server is this deployment, and every
 * Try-it-out submission gets a fresh Idempotency-Key unless the reader typed one: the document's
 * example key (which the form is filled with) or an empty field would make every submission after the
 * first a replay of the first job.
 */
const DOCS_INIT_JS = `
(function () {
  'use strict';
  var API_PATH = ${JSON.stringify(API_PATH)};
  var EXAMPLE_KEY = ${JSON.stringify(IDEMPOTENCY_KEY_EXAMPLE)};

  // A random (version 4) UUID; crypto.randomUUID exists only in secure contexts (https, localhost).
  function freshKey() {
    if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
    var bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    var hex = Array.prototype.map.call(bytes, function (b) { return (b + 0x100).toString(16).slice(1); }).join('');
    return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
  }

  function withFreshIdempotencyKey(request) {
    if (String(request.method).toUpperCase() !== 'POST') return request;
    var path;
    try {
      path = new URL(request.url, window.location.href).pathname;
    } catch (e) {
      return request;
    }
    if (path !== API_PATH) return request;
    var headers = request.headers || (request.headers = {});
    var name = Object.keys(headers).filter(function (h) { return h.toLowerCase() === 'idempotency-key'; })[0];
    var value = name === undefined ? '' : String(headers[name]).trim();
    if (value === '' || value === EXAMPLE_KEY) {
      if (name !== undefined) delete headers[name];
      headers['Idempotency-Key'] = freshKey();
    }
    return request;
  }

  window.addEventListener('load', function () {
    window.ui = SwaggerUIBundle({
      url: '/docs/openapi.json',
      dom_id: '#swagger-ui',
      validatorUrl: null,
      deepLinking: true,
      docExpansion: 'list',
      tryItOutEnabled: false,
      requestInterceptor: withFreshIdempotencyKey,
    });
  });
})();
`;

/** An origin as the URL parser writes it, plain enough to go into a header (a Host header may carry anything). */
const PLAIN_ORIGIN = /^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin the API reference page is served from, which its Try-it-out calls: the configured public
 * origin (PUBLIC_BASE_URL, whose scheme survives a proxy that ends TLS) when the request came to its
 * host, else the request's own origin (the page reached on another address, e.g. a local port).
 */
function pageOrigin(c: Context<AppEnv>, publicBaseUrl?: string): string {
  const configured = publicBaseUrl ? new URL(publicBaseUrl) : undefined;
  const request = new URL(c.req.url);
  if (configured && configured.host === request.host) return configured.origin;
  if (PLAIN_ORIGIN.test(request.origin)) return request.origin;
  return configured?.origin ?? 'null';
}

/** The Content-Security-Policy of /docs: scripts and styles from this origin, and requests to `origin` only. */
function docsCsp(origin: string): string {
  // Swagger UI sets style attributes and <style> elements at run time; scripts stay 'self' only.
  return `default-src 'self'; connect-src ${origin}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
}

const SWAGGER_FILES = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const;

export interface DocsOptions {
  /** PUBLIC_BASE_URL: the origin Try-it-out calls when the page is reached on its host. */
  publicBaseUrl?: string;
  /** Where a Swagger UI file is, undefined when it is not installed; default: the `swagger-ui-dist` package beside this module. */
  swaggerUiFile?: (file: string) => string | undefined;
}

/** Swagger UI's file from the installed `swagger-ui-dist`, if there is one (the sandbox's build ships none). */
const requireHere = createRequire(import.meta.url);
function installedSwaggerUiFile(file: string): string | undefined {
  try {
    return requireHere.resolve(`swagger-ui-dist/${file}`);
  } catch {
    return undefined;
  }
}

/** The answer of the reference page and its assets where Swagger UI is not installed: 404, saying where the document is. */
const NO_SWAGGER_UI =
  'The API reference page is not part of this installation: its Swagger UI files (the swagger-ui-dist package) are not installed. The OpenAPI document is at /openapi.json and /openapi.yaml.\n';

/**
 * The API reference: GET /docs renders the committed OpenAPI document with Swagger UI, whose static
 * files are served from the installed `swagger-ui-dist` package (no CDN, no validator badge); where it
 * is not installed (the sandbox's published build), the page and those files answer 404 saying so. The
 * document itself is at /openapi.json and /openapi.yaml. The page reads its own copy,
 * /docs/openapi.json, whose first server is the origin the page is served from (the document's
 * placeholder servers after it), so that Try-it-out reaches this deployment under a
 * Content-Security-Policy that lets the page call that origin and no other. Not part of the API
 * contract.
 */
export function registerDocsRoutes(app: OpenAPIHono<AppEnv>, options: DocsOptions = {}): void {
  const swaggerUiFile = options.swaggerUiFile ?? installedSwaggerUiFile;
  const noSwaggerUi = (c: Context<AppEnv>) => {
    c.header('Cache-Control', 'no-store');
    return c.text(NO_SWAGGER_UI, 404);
  };
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
  const documentFile = (name: string) => {
    docDir ??= openapiDir();
    return join(docDir, name);
  };

  app.get('/openapi.json', async (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.body(new Uint8Array(await cached(documentFile('openapi.json'))), 200, { 'Content-Type': 'application/json; charset=utf-8' });
  });
  // The page's copy: the committed document with this deployment as its first server. It depends on
  // the request's host, so no cache keeps it.
  app.get('/docs/openapi.json', async (c) => {
    const doc = JSON.parse((await cached(documentFile('openapi.json'))).toString('utf8')) as { servers?: { url: string }[] };
    const origin = pageOrigin(c, options.publicBaseUrl);
    const placeholders = (doc.servers ?? []).filter((s) => s.url !== origin);
    doc.servers = [{ url: origin, description: 'This deployment: the origin this page is served from.' } as { url: string }, ...placeholders];
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.json(doc, 200);
  });
  app.get('/openapi.yaml', async (c) => {
    c.header('Cache-Control', 'no-cache');
    return c.body(new Uint8Array(await cached(documentFile('openapi.yaml'))), 200, { 'Content-Type': 'application/yaml; charset=utf-8' });
  });

  for (const [file, type] of Object.entries(SWAGGER_FILES)) {
    app.get(`/docs/assets/${file}`, async (c) => {
      const path = swaggerUiFile(file);
      if (path === undefined) return noSwaggerUi(c);
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
    if (swaggerUiFile('swagger-ui-bundle.js') === undefined) return noSwaggerUi(c);
    pageHeaders(c, docsCsp(pageOrigin(c, options.publicBaseUrl)));
    c.header('Cache-Control', 'no-store');
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
