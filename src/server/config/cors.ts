import { redactText } from '../redact.js';
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
  if (!url?.[2].includes('*')) {
    throw new ConfigError(`CORS_PREVIEW_PATTERN: expected an origin with one "*" label, e.g. https://*.preview.example.com; got "${redactText(pattern)}"`);
  }
  const host = url[2]
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
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s@?#]+$/i.test(origin)) throw new ConfigError(`CORS_ORIGINS: "${redactText(origin)}" is not an origin like https://app.example.com`);
  }
  return {
    origins,
    previewPattern: previewPattern ? previewPatternToRegExp(previewPattern) : undefined,
    previewPatternText: previewPattern || undefined,
  };
}
