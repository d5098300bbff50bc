import { isIPv6 } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../api-error.js';
import type { AppEnv } from '../context.js';

/** Whether `host` names this machine's loopback: 127.0.0.0/8, ::1 (or ::ffff:127.x.y.z) and localhost. */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost') return true;
  let hostname: string;
  try {
    // WHATWG URL writes an address one way: 127.1 → 127.0.0.1, 0:0:0:0:0:0:0:1 → [::1], ::ffff:127.0.0.1 → [::ffff:7f00:1].
    hostname = new URL(`http://${isIPv6(bare) ? `[${bare}]` : bare}`).hostname;
  } catch {
    return false;
  }
  return /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}

/** A Host value (`name[:port]`) as URL writes it (lower case, default port dropped), or undefined when it is none. */
function normalHost(value: string): { host: string; hostname: string } | undefined {
  const trimmed = value.trim();
  if (trimmed === '' || /[\s/?#@\\]/.test(trimmed)) return undefined;
  try {
    const url = new URL(`http://${isIPv6(trimmed) ? `[${trimmed}]` : trimmed}`);
    return { host: url.host, hostname: url.hostname };
  } catch {
    return undefined;
  }
}

/**
 * The Host values a listener bound to `bound` is reached by, besides loopback names: the address it is
 * bound to or, on a wildcard address (0.0.0.0, ::), every address of this machine's interfaces (what a
 * load balancer's or an orchestrator's health check sends).
 */
export function boundHosts(bound: string): string[] {
  if (bound !== '0.0.0.0' && bound !== '::') return [bound];
  const hosts: string[] = [];
  for (const address of Object.values(networkInterfaces()).flat()) {
    if (!address) continue;
    if (address.family === 'IPv4' || bound === '::') hosts.push(address.address.replace(/%.*$/s, ''));
  }
  return hosts;
}

export interface HostGuardOptions {
  /**
   * What may be in Host besides the loopback names: URLs (their host, port included), `name:port`
   * (exactly), or a bare name or address (at any port). `*` alone turns the check off.
   */
  allowed: readonly string[];
  /** Which requests are checked (default: all). */
  paths?: RegExp;
  /** What is being protected, for the message: "this sandbox", "this server". */
  subject: string;
  /** How an operator allows another name: "start it with --allow-host <name>". */
  remedy: string;
}

/**
 * Refuses a request whose Host is not one the listener is reached by: a DNS-rebinding page (a page of
 * another site whose name is made to resolve to this machine) sends its own name as Host, and would
 * otherwise read what the listener shows anyone on this machine (the sandbox's test keys, a journal,
 * metrics). Loopback names (localhost, 127.x.y.z, [::1]) pass at any port: no page of another site
 * sends them. Answered 403 INVALID_REQUEST with the error body, before CORS.
 */
export function hostGuard(options: HostGuardOptions): MiddlewareHandler<AppEnv> {
  const any = options.allowed.includes('*');
  const exact = new Set<string>();
  const names = new Set<string>();
  for (const entry of options.allowed) {
    const value = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? new URL(entry).host : entry;
    const normal = normalHost(value);
    if (!normal) continue;
    // A name given with a port is that port only; a bare name or address, any port.
    if (/:\d+$/.test(value) || /^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) exact.add(normal.host);
    else names.add(normal.hostname);
  }
  const listed = [...exact, ...names].join(', ');
  return async (c, next) => {
    if (any || (options.paths && !options.paths.test(c.req.path))) return next();
    const given = c.req.header('host') ?? new URL(c.req.url).host;
    const normal = normalHost(given);
    if (normal && (isLoopbackHost(normal.hostname) || exact.has(normal.host) || names.has(normal.hostname))) return next();
    const shown = JSON.stringify(given.length > 100 ? `${given.slice(0, 100)}…` : given);
    throw new ApiError(
      'INVALID_REQUEST',
      `This request was addressed to Host ${shown}, which is not a name ${options.subject} is reached by (localhost, 127.0.0.1 or [::1]${listed ? `, ${listed}` : ''}); it is refused. ` +
        `A web page of another site can make its own name resolve to this machine (DNS rebinding) and must not read what is here. To reach it under that name, ${options.remedy}.`,
      undefined,
      {},
      403,
    );
  };
}
