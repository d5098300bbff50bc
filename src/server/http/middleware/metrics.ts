import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { OpsMetrics } from '../../metrics.js';
import type { AppEnv } from '../context.js';

/**
 * Counts every answer by its route pattern (never the raw path: ids would explode the label space).
 * The labelled children are looked up once per method, route and status and then reused, so a
 * request costs an increment and an observation, not a label object and its hashing.
 */
export function httpMetrics(metrics: OpsMetrics): MiddlewareHandler<AppEnv> {
  type Children = { count: { inc(): void }; duration: { observe(value: number): void } };
  const children = new Map<string, Children>();
  return async (c, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const pattern = routePath(c, -1);
      const route = pattern === '*' || pattern === '/*' || pattern === '' ? 'unmatched' : pattern;
      const method = c.req.method;
      const status = c.res.status;
      const name = `${method} ${status} ${route}`;
      let child = children.get(name);
      if (!child) {
        const labels = { method, route, status: String(status) };
        child = { count: metrics.httpRequests.labels(labels), duration: metrics.httpDuration.labels(labels) };
        // Routes are patterns and methods a handful, but a client can send any method name.
        if (children.size < 1000) children.set(name, child);
      }
      child.count.inc();
      child.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
