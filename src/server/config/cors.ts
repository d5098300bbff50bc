import { ConfigError } from './error.js';

/** Which origins a browser may call the API from (CORS_ORIGINS, CORS_PREVIEW_PATTERN). */
export interface CorsSettings {
  origins: string[];
  previewPattern?: RegExp;
  previewPatternText?: string;
}

/** `https://*.preview.example.com` → a RegExp matching exactly one DNS label in place of `*`. */
function previewPatternToRegExp(pattern: string): RegExp {
  const url = /^(https?):\/\/([a-z0-9*.-]+)(:\d+)?$/i.exec(pattern);
  const hostPattern = url?.[2];
  if (!url || !hostPattern?.includes('*')) {
    throw new ConfigError(
      'CORS_PREVIEW_PATTERN: expected an origin with one "*" label in its host, e.g. https://*.preview.example.com (http or https, no path, user name or password); empty to allow none',
    );
  }
  const host = hostPattern
    .split('.')
    .map((label) => (label === '*' ? '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?' : label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('\\.');
  return new RegExp(`^${url[1]}://${host}${(url[3] ?? '').replace(':', '\\:')}$`, 'i');
}

/** CORS_ORIGINS (comma-separated origins) and CORS_PREVIEW_PATTERN, checked; a bad one is a ConfigError. */
export function corsSettings(originsList: string, previewPattern: string): CorsSettings {
  const origins = originsList
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  // The value is not repeated: the position says which one is wrong.
  for (const [index, origin] of origins.entries()) {
    if (!/^https?:\/\/[^/\s@?#]+$/i.test(origin)) {
      throw new ConfigError(
        `CORS_ORIGINS: origin ${index + 1} of ${origins.length} is not an origin like https://app.example.com (http or https, a host and an optional port; no path, user name or password); separate origins with commas, or leave it empty to allow none`,
      );
    }
  }
  return {
    origins,
    previewPattern: previewPattern ? previewPatternToRegExp(previewPattern) : undefined,
    previewPatternText: previewPattern || undefined,
  };
}
