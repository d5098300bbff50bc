import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { OpenAPIHono } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_EXAMPLE } from '../../../contract/parameter-schemas.js';
import type { AppEnv } from '../context.js';
import { registerDocsRoutes } from './docs.js';

/**
 * /docs in process: the page's copy of the document offers the origin the page is served from first,
 * and the page's Content-Security-Policy lets it call exactly that origin (the browser side is
 * test/docs-browser.test.ts).
 */
const committed = JSON.parse(readFileSync(new URL('../../../../openapi/openapi.json', import.meta.url), 'utf8')) as {
  servers: { url: string }[];
  paths: Record<string, unknown>;
};

function docsApp(publicBaseUrl?: string) {
  const app = new OpenAPIHono<AppEnv>();
  registerDocsRoutes(app, { publicBaseUrl });
  return app;
}

async function servedDocument(app: OpenAPIHono<AppEnv>, url: string, headers: Record<string, string> = {}) {
  const res = await app.request(url, { headers });
  expect(res.status).toBe(200);
  return { res, doc: (await res.json()) as typeof committed };
}

/** The directives of a Content-Security-Policy, name → sources. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

describe('/docs: Try-it-out reaches the deployment that serves the page', () => {
  it("serves the page a copy of the document whose first server is the page's origin, the placeholders after it", async () => {
    const { res, doc } = await servedDocument(docsApp('http://127.0.0.1:8080'), 'http://127.0.0.1:8080/docs/openapi.json');
    expect(doc.servers.map((s) => s.url)).toEqual(['http://127.0.0.1:8080', ...committed.servers.map((s) => s.url)]);
    expect(committed.servers.map((s) => s.url)).toEqual(['https://tts.example.com']);
    // Otherwise the committed document, unchanged.
    expect(doc.paths).toEqual(committed.paths);
    // It depends on the request's host: never cached.
    expect(res.headers.get('cache-control')).toBe('no-store');
    // /openapi.json stays the committed document, byte for byte.
    const plain = await docsApp('http://127.0.0.1:8080').request('http://127.0.0.1:8080/openapi.json');
    expect(await plain.text()).toBe(readFileSync(new URL('../../../../openapi/openapi.json', import.meta.url), 'utf8'));
  });

  it('uses PUBLIC_BASE_URL (its https scheme) when the page is reached on its host, as behind a proxy that ends TLS', async () => {
    const app = docsApp('https://tts.example.com');
    const { doc } = await servedDocument(app, 'http://tts.example.com/docs/openapi.json');
    // The committed placeholder is that same origin here: listed once.
    expect(doc.servers.map((s) => s.url)).toEqual(['https://tts.example.com']);
    const page = await app.request('http://tts.example.com/docs');
    expect(directives(page.headers.get('content-security-policy')!).get('connect-src')).toEqual(['https://tts.example.com']);
  });

  it("uses the request's own origin when the page is reached on another address than PUBLIC_BASE_URL's", async () => {
    const app = docsApp('https://tts.example.com');
    const { doc } = await servedDocument(app, 'http://192.168.1.5:8080/docs/openapi.json');
    expect(doc.servers.map((s) => s.url)).toEqual(['http://192.168.1.5:8080', 'https://tts.example.com']);
    const page = await app.request('http://192.168.1.5:8080/docs');
    expect(directives(page.headers.get('content-security-policy')!).get('connect-src')).toEqual(['http://192.168.1.5:8080']);
  });

  it('never writes a host that is not a plain origin into the page or its policy', async () => {
    const app = docsApp('https://tts.example.com');
    const { doc } = await servedDocument(app, 'http://evil;script-src*/docs/openapi.json');
    expect(doc.servers[0]!.url).toBe('https://tts.example.com');
    const page = await app.request('http://evil;script-src*/docs');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).not.toContain('evil');
    expect(directives(csp).get('connect-src')).toEqual(['https://tts.example.com']);
  });

  it('answers the page under a policy that allows calls to exactly its origin, scripts from itself only', async () => {
    const page = await docsApp('http://127.0.0.1:8080').request('http://127.0.0.1:8080/docs');
    expect(page.status).toBe(200);
    const csp = directives(page.headers.get('content-security-policy')!);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(['http://127.0.0.1:8080']);
    // No script-src: scripts fall back to default-src 'self' (no inline script, no CDN).
    expect(csp.has('script-src')).toBe(false);
    const body = await page.text();
    expect(body).toContain('<script src="/docs/assets/docs.js"></script>');
    expect(body).not.toMatch(/<script>/);
  });
});

describe("/docs where Swagger UI is not installed (the sandbox's published build)", () => {
  it('answers the page and its Swagger UI files 404 with a message saying where the document is, and still serves the document', async () => {
    const app = new OpenAPIHono<AppEnv>();
    registerDocsRoutes(app, { swaggerUiFile: () => undefined });
    for (const path of ['/docs', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']) {
      const res = await app.request(`http://127.0.0.1:8080${path}`);
      expect(res.status, path).toBe(404);
      const text = await res.text();
      expect(text, path).toContain('swagger-ui-dist');
      expect(text, path).toContain('/openapi.json');
    }
    expect((await app.request('http://127.0.0.1:8080/openapi.json')).status).toBe(200);
    expect((await app.request('http://127.0.0.1:8080/docs/openapi.json')).status).toBe(200);
  });
});

describe('/docs: the init script gives every Try-it-out submission a fresh Idempotency-Key', () => {
  /** Runs the shipped init script with a stand-in window and Swagger UI, and returns its request interceptor. */
  async function interceptor(): Promise<(request: { method: string; url: string; headers?: Record<string, string> }) => typeof request> {
    const res = await docsApp().request('http://127.0.0.1:8080/docs/assets/docs.js');
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    const script = await res.text();
    let onLoad: (() => void) | undefined;
    let config: { url?: string; requestInterceptor?: unknown } = {};
    const window = {
      location: { href: 'http://127.0.0.1:8080/docs' },
      addEventListener: (event: string, listener: () => void) => {
        if (event === 'load') onLoad = listener;
      },
    };
    const context = {
      window,
      crypto: globalThis.crypto,
      URL,
      SwaggerUIBundle: (c: typeof config) => {
        config = c;
        return {};
      },
    };
    runInNewContext(script, context);
    onLoad!();
    expect(config.url).toBe('/docs/openapi.json');
    return config.requestInterceptor as never;
  }

  it('replaces the example key or an empty field with a fresh UUID each time, and keeps a key the reader typed', async () => {
    const intercept = await interceptor();
    const submit = (headers: Record<string, string>) =>
      intercept({ method: 'POST', url: 'http://127.0.0.1:8080/v1/agent-tts', headers: { ...headers } }).headers!;
    const first = submit({ 'idempotency-key': IDEMPOTENCY_KEY_EXAMPLE });
    const second = submit({ 'idempotency-key': IDEMPOTENCY_KEY_EXAMPLE });
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(first['Idempotency-Key']).toMatch(uuid);
    expect(second['Idempotency-Key']).toMatch(uuid);
    expect(first['Idempotency-Key']).not.toBe(second['Idempotency-Key']);
    expect(Object.keys(first)).toEqual(['Idempotency-Key']);
    expect(submit({})['Idempotency-Key']).toMatch(uuid);
    expect(submit({ 'idempotency-key': '  ' })['Idempotency-Key']).toMatch(uuid);
    expect(submit({ 'idempotency-key': 'my-own-key' })).toEqual({ 'idempotency-key': 'my-own-key' });
    // Only the submission: polls and the document's own fetch are left alone.
    expect(intercept({ method: 'GET', url: 'http://127.0.0.1:8080/v1/agent-tts?id=x', headers: {} }).headers).toEqual({});
    expect(intercept({ method: 'GET', url: '/docs/openapi.json', headers: {} }).headers).toEqual({});
  });
});
