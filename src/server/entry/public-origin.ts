import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';

/**
 * The origins a running server is reached on, as it recorded them in its data directory at start:
 * `agent-tts-admin` builds sign-in links and fixtures on them when its own environment does not name
 * the server (no PUBLIC_BASE_URL, HOST or PORT), so a server started with PORT=24080 gets links on
 * 24080 from an admin run in another shell.
 */
interface RecordedOrigin {
  base_url: string;
  voices_url: string;
  /** The settings that made base_url in the server: PUBLIC_BASE_URL, HOST and PORT, or the defaults. */
  from: Config['publicBaseUrlFrom'];
  recorded_at: string;
}

export const ORIGIN_FILE = 'public-origin.json';

/**
 * Written by agent-tts-server once it listens: PUBLIC_BASE_URL, else http://HOST:<the bound port>
 * (PORT=0 binds a free port, which only the server knows). Replaced whole (write, then rename).
 */
export function recordOrigin(config: Config, ports: { api: number; voices: number }): void {
  const bound = (url: string, configured: number, actual: number) => (configured === 0 ? url.replace(/:0$/, `:${actual}`) : url);
  const record: RecordedOrigin = {
    base_url: config.publicBaseUrlFrom === 'PUBLIC_BASE_URL' ? config.publicBaseUrl : bound(config.publicBaseUrl, config.port, ports.api),
    voices_url: bound(config.publicVoicesUrl, config.voicesPort, ports.voices),
    from: config.publicBaseUrlFrom,
    recorded_at: new Date().toISOString(),
  };
  const file = join(config.dataDir, ORIGIN_FILE);
  writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.${process.pid}.tmp`, file);
}

function readRecordedOrigin(dataDir: string): RecordedOrigin | undefined {
  try {
    const record = JSON.parse(readFileSync(join(dataDir, ORIGIN_FILE), 'utf8')) as Partial<RecordedOrigin>;
    if (typeof record.base_url !== 'string' || typeof record.voices_url !== 'string' || !URL.canParse(record.base_url)) return undefined;
    return record as RecordedOrigin;
  } catch {
    return undefined;
  }
}

/**
 * The origins agent-tts-admin prints links on, and the sentence saying where they came from: its own
 * PUBLIC_BASE_URL, HOST or PORT first (what the operator set for this command wins), then what the
 * server recorded in DATA_DIR, then the defaults (http://127.0.0.1:8080).
 */
export function adminOrigin(config: Config): { baseUrl: string; voicesUrl: string; said: string } {
  const own = { baseUrl: config.publicBaseUrl, voicesUrl: config.publicVoicesUrl };
  if (config.publicBaseUrlFrom === 'PUBLIC_BASE_URL') return { ...own, said: `links on ${own.baseUrl} (from PUBLIC_BASE_URL)` };
  if (config.publicBaseUrlFrom === 'HOST and PORT') {
    return { ...own, said: `links on ${own.baseUrl} (from HOST and PORT; set PUBLIC_BASE_URL if clients reach the server elsewhere)` };
  }
  const recorded = readRecordedOrigin(config.dataDir);
  if (recorded) {
    return {
      baseUrl: recorded.base_url,
      voicesUrl: recorded.voices_url,
      said: `links on ${recorded.base_url} (recorded by agent-tts-server at ${recorded.recorded_at} in DATA_DIR/${ORIGIN_FILE}, from its ${recorded.from === 'defaults' ? 'default HOST and PORT' : recorded.from}; set PUBLIC_BASE_URL to choose)`,
    };
  }
  return {
    ...own,
    said: `links on ${own.baseUrl} (the default HOST and PORT: neither PUBLIC_BASE_URL, HOST nor PORT is set, and no server has recorded its origin in DATA_DIR)`,
  };
}
