import type { Exchange } from './exchange.js';
import type { Target } from './fixtures-file.js';

export type Origin = 'service' | 'voices' | 'elsewhere';

/** Which deployment origin an exchange went to, and its path there (a deployment may sit under a base path). */
export function locate(target: Target, exchange: Exchange): { origin: Origin; path: string } {
  const url = exchange.request.url;
  const pathname = new URL(url).pathname;
  const under = (base: string) => url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`);
  if (under(target.baseUrl)) return { origin: 'service', path: strip(pathname, new URL(target.baseUrl).pathname) };
  if (target.voicesUrl && under(target.voicesUrl.replace(/\/+$/, ''))) {
    return { origin: 'voices', path: strip(pathname, new URL(target.voicesUrl).pathname) };
  }
  // audio_url may point at another origin (a CDN); its path is what the document describes.
  return { origin: 'elsewhere', path: pathname };
}

function strip(pathname: string, basePath: string): string {
  const base = basePath.replace(/\/+$/, '');
  return base && pathname.startsWith(base) ? pathname.slice(base.length) || '/' : pathname;
}
