import { ConfigError } from './error.js';
import type { EnvSettings } from './settings.js';
import { S3_CREDENTIALS } from './urls.js';

/** The object store audio is kept in (AUDIO_STORE=s3://…), with its connection settings. */
export interface S3Settings {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing slash ('' for the bucket's root). */
  prefix: string;
}

/** `s3://bucket/some/prefix` → { bucket, prefix }; undefined when it is not such a URL. */
export function parseS3Url(url: string): S3Location | undefined {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  const bucket = m?.[1];
  if (!m || bucket === undefined) return undefined;
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((p) => p === '.' || p === '..') || /\/\//.test(prefix)) return undefined;
  return { bucket, prefix };
}

/** The object store of AUDIO_STORE, or undefined (audio under DATA_DIR); S3_* settings without it are refused. */
export function s3Settings(e: EnvSettings, env: NodeJS.ProcessEnv): S3Settings | undefined {
  if (e.AUDIO_STORE === undefined || e.AUDIO_STORE === '') {
    const stray = (['S3_ENDPOINT', 'S3_REGION', 'S3_CONNECT_TIMEOUT_MS', 'S3_REQUEST_TIMEOUT_MS'] as const).find((name) => e[name] !== undefined);
    if (stray)
      throw new ConfigError(
        `${stray}: set, but AUDIO_STORE is not an s3:// URL (audio stays in DATA_DIR/audio); set AUDIO_STORE=s3://bucket/prefix or unset ${stray}`,
      );
    return undefined;
  }
  const location = parseS3Url(e.AUDIO_STORE);
  if (!location) {
    const url = URL.canParse(e.AUDIO_STORE) ? new URL(e.AUDIO_STORE) : undefined;
    if (url && (url.username !== '' || url.password !== '')) {
      throw new ConfigError(`AUDIO_STORE: must not contain a user name or password (${S3_CREDENTIALS}); expected s3://bucket/prefix`);
    }
    // What is wrong, not the value: a malformed value may still hold a secret.
    const why = !/^s3:\/\//.test(e.AUDIO_STORE) ? 'it does not start with s3://' : 'the bucket name or the prefix does not fit';
    throw new ConfigError(
      `AUDIO_STORE: expected s3://bucket/prefix (a bucket name of 3-63 lower-case letters, digits, dots and hyphens; a prefix without . or .. segments or //); ${why}`,
    );
  }
  return {
    ...location,
    endpoint: e.S3_ENDPOINT?.replace(/\/$/, ''),
    region: e.S3_REGION ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true',
    connectTimeoutMs: e.S3_CONNECT_TIMEOUT_MS ?? 3_000,
    requestTimeoutMs: e.S3_REQUEST_TIMEOUT_MS ?? 10_000,
  };
}
