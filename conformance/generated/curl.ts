import { displayKey } from '../redaction.js';
import type { GeneratedCase } from './cases.js';

/** Quotes a value for a POSIX shell: single quotes, with any single quote closed, escaped and reopened. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The case as a `curl` command a person can paste. The API key the suite used is shown as
 * `tts_<public_id>_<secret>`: its display form with the secret left for the reader to put back
 * (docs/api-rules.md#keys: a key is never printed in full). A fresh Idempotency-Key is written as
 * `$(uuidgen)`, so each paste is a new submission, as the suite's was.
 */
export function curlCommand(baseUrl: string, c: GeneratedCase, key?: string): string {
  const parts = ['curl', '-i', '-X', c.method, shellQuote(`${baseUrl}${c.path}`)];
  if (c.auth === 'key') parts.push('-H', shellQuote(`Authorization: Bearer ${key ? displayKey(key) : 'tts_<public_id>'}_<secret>`));
  else if (c.authorization !== undefined) parts.push('-H', shellQuote(`Authorization: ${c.authorization}`));
  if (c.contentType !== undefined) parts.push('-H', shellQuote(`Content-Type: ${c.contentType}`));
  if (c.idempotencyKey?.kind === 'fresh') parts.push('-H', '"Idempotency-Key: $(uuidgen)"');
  // curl drops a header given with an empty value; `Name;` sends it empty.
  else if (c.idempotencyKey?.kind === 'literal')
    parts.push('-H', shellQuote(c.idempotencyKey.value === '' ? 'Idempotency-Key;' : `Idempotency-Key: ${c.idempotencyKey.value}`));
  if (c.body !== undefined) parts.push('--data-raw', shellQuote(c.body));
  return parts.join(' ');
}
