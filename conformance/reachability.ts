import { API_PATH, VOICES_PATH } from '../src/contract/limits.js';
import type { Target } from './fixtures-file.js';
import { sendRaw } from './http-client.js';

/**
 * Before any rule runs, one GET of the API path without a key (and, when there is a voices URL, one
 * GET of the voice catalog), each within the request timeout. Any HTTP answer, whatever its status,
 * shows that something answers there; no answer at all (connection refused, unknown host, TLS
 * failure, timeout) would only turn every rule into the same error, so the run stops instead. The
 * probes are not recorded: they are not part of the run.
 *
 * Returns one line per URL that did not answer, "cannot reach <url>: <reason>"; empty when all did.
 */
export async function unreachable(target: Target, timeoutMs: number): Promise<string[]> {
  const probes = [{ base: target.baseUrl, path: API_PATH }];
  if (target.voicesUrl) probes.push({ base: target.voicesUrl.replace(/\/+$/, ''), path: VOICES_PATH });
  const exchanges = await Promise.all(
    probes.map(({ base, path }) => sendRaw(base, { method: 'GET', url: path, timeoutMs, label: 'reachability probe' }, 0, 'reachability')),
  );
  return exchanges
    .filter((exchange) => exchange.response === undefined && !exchange.dropped)
    .map((exchange) => {
      // origin + path: never the user:password of a URL that carries one.
      const url = new URL(exchange.request.url);
      return `cannot reach ${url.origin}${url.pathname}: ${exchange.error ?? 'no answer'}`;
    });
}
