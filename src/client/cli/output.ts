import { API_KEY_PATTERN, redactKeys } from '../../contract/limits.js';

/** The form a key is shown in: `tts_<public_id>` (docs/api-rules.md#key-storage), or a placeholder for a malformed one. */
export function displayKey(key: string): string {
  const match = API_KEY_PATTERN.exec(key);
  return match ? `tts_${match[1]}` : '[redacted key]';
}

export interface OutputStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

/**
 * Every line the tool prints goes through here, so no API key reaches stdout, stderr or --json:
 * anything shaped like a key is cut to its display form, and the configured key itself is
 * replaced even when it is malformed (the pattern alone would miss it).
 */
export class Output {
  readonly json: boolean;
  private readonly secrets = new Set<string>();

  constructor(
    readonly streams: OutputStreams,
    options: { json?: boolean } = {},
  ) {
    this.json = options.json ?? false;
  }

  /** Registers a secret to hide wherever it would appear. */
  addSecret(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.secrets.add(secret);
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) {
      if (result.includes(secret)) result = result.split(secret).join(displayKey(secret));
    }
    return redactKeys(result);
  }

  /** A line of results on standard output. */
  out(line = ''): void {
    this.streams.stdout.write(`${this.redact(line)}\n`);
  }

  /** A line of diagnostics on standard error. */
  err(line = ''): void {
    this.streams.stderr.write(`${this.redact(line)}\n`);
  }

  /** Raw text on standard error (progress redraws). */
  errRaw(text: string): void {
    this.streams.stderr.write(this.redact(text));
  }

  /** The one JSON document of a --json run. */
  emitJson(value: unknown): void {
    this.streams.stdout.write(`${this.redact(JSON.stringify(value, null, 2))}\n`);
  }

  get stderrIsTty(): boolean {
    return Boolean(this.streams.stderr.isTTY);
  }
}
