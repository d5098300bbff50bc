import { pino, type Logger as PinoLogger, type LoggerOptions as LoggerOptionsOfPino } from 'pino';
import { redactKeys } from '@agent-tts/contract/limits.js';
import { redactText } from './redact.js';

/**
 * Structured JSON logs. Secrets are never logged whole: every string that reaches a log line passes
 * through `redactString`, so a key pasted into a text or a header shows only as `tts_<public_id>`,
 * and a URL quoted by a library's error (REDIS_URL, an endpoint) without its credentials.
 */
function redactString(value: string): string {
  const keysOut = value.includes('tts_') ? redactKeys(value) : value;
  return keysOut.includes('://') || keysOut.includes('=') ? redactText(keysOut) : keysOut;
}

/**
 * Redacts every string of a log record. Errors go through pino's serializer first (as plain objects
 * they would log as {}). Strings without `tts_`, `://` or `=` are returned untouched, so an ordinary
 * request line costs a few `includes` calls.
 */
function redactValues(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) return redactValues(pino.stdSerializers.err(value), depth + 1);
  if (Array.isArray(value)) return value.map((v) => redactValues(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = redactValues(v, depth + 1);
  return out;
}

export interface LoggerOptions {
  /**
   * Write to stdout asynchronously (servers): a log line no longer blocks the request that writes it;
   * lines still leave in order, as soon as the previous write is done, and whatever is pending is
   * written synchronously when the process exits.
   */
  asyncStdout?: boolean;
  /** Where the lines go instead of stdout (tests that read what a server logs, in their own process). */
  destination?: { write(line: string): void };
}

export function createLogger(level: string, name = 'agent-tts', options: LoggerOptions = {}): Logger {
  const stdout = options.asyncStdout && !options.destination ? pino.destination({ dest: 1, sync: false }) : undefined;
  const destination = options.destination ?? stdout;
  if (stdout) {
    process.on('exit', () => {
      try {
        stdout.flushSync();
      } catch {
        // Nothing left to do at exit if stdout is gone.
      }
    });
  }
  const settings: LoggerSettings = {
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['authorization', '*.authorization', 'headers.authorization', 'apiKey', '*.apiKey'], censor: '[redacted]' },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? redactString(a) : a)) as Parameters<typeof method>);
      },
    },
    formatters: {
      log(object) {
        return redactValues(object) as Record<string, unknown>;
      },
    },
  };
  return destination ? pino(settings, destination) : pino(settings);
}

type LoggerSettings = LoggerOptionsOfPino<never>;

/**
 * The server's logger: pino's, as createLogger makes it. The domain, the adapters and the HTTP layer name
 * it from here, so that this module alone names the logging library.
 */
export type Logger = PinoLogger;

/** What the request log line says of an answered request (one line per request: http/middleware/request-context.ts). */
export interface RequestLineFields {
  request_id: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  /** The caller's display key (`tts_<public_id>`), once its key was parsed. */
  key?: string;
}

/**
 * Writes the request line of `log`, a logger of createLogger's, as its `log.info(fields, 'request')`
 * would, byte for byte (log.test.ts compares them), without pino's work per line: the hooks, the
 * formatter that walks the record, the redaction paths and the serialisation key by key took 15 to 40
 * µs of a poll that costs about a hundred (docs/benchmarks.md, "Where a poll's time goes"). The fields
 * are few and known: the strings pass the same redaction, the numbers need none.
 */
export function requestLineWriter(log: Logger): (fields: RequestLineFields) => void {
  const logger = log as unknown as Record<symbol, unknown>;
  const stream = logger[pino.symbols.streamSym] as { write(line: string): void };
  const bindings = logger[pino.symbols.chindingsSym] as string;
  const text = (value: string) => JSON.stringify(redactString(value));
  return (fields) => {
    if (!log.isLevelEnabled('info')) return;
    const key = fields.key === undefined ? '' : `,"key":${text(fields.key)}`;
    stream.write(
      `{"level":30${pino.stdTimeFunctions.isoTime()}${bindings},"request_id":${text(fields.request_id)},"method":${text(fields.method)},"path":${text(fields.path)},"status":${fields.status},"ms":${fields.ms}${key},"msg":"request"}\n`,
    );
  };
}
