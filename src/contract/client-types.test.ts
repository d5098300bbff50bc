/**
 * The generated client types (src/client/openapi-types.ts, openapi-typescript) keep the contract's
 * presence rules: a field the API marks optional is optional in TypeScript, a required one is required.
 *
 * The `expectTypeOf` assertions below are checked by the TypeScript compiler, not at run time; so that
 * `vitest run` fails too when they break, the last test compiles this file with tsc, together with
 * assertions generated from the document for every property of every component schema.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { components, operations } from '../client/openapi-types.js';
import { isObject, loadDocument, REPO_ROOT, type JsonObject } from './__fixtures__/openapi-helpers.js';

type Schemas = components['schemas'];
/** Keys of T that may be omitted. */
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
/** Keys of T that must be present. */
type RequiredKeys<T> = Exclude<keyof T, OptionalKeys<T>>;

describe('generated client types (docs/api-rules.md#jobs)', () => {
  it('audio: duration_seconds, expires_at and file_size_bytes are optional; format, voice and speed required', () => {
    expectTypeOf<Schemas['Audio']['duration_seconds']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<'duration_seconds' | 'expires_at' | 'file_size_bytes'>().toExtend<OptionalKeys<Schemas['Audio']>>();
    expectTypeOf<'format' | 'voice' | 'speed'>().toExtend<RequiredKeys<Schemas['Audio']>>();
    expectTypeOf<Schemas['Audio']['speed']>().toEqualTypeOf<number>();
  });

  it('meta: processing_time_ms optional; request_id and api_version required', () => {
    expectTypeOf<OptionalKeys<Schemas['Meta']>>().toEqualTypeOf<'processing_time_ms'>();
    expectTypeOf<Schemas['Meta']['api_version']>().toEqualTypeOf<'2026-04'>();
  });

  it('completed, processing, failed and expired bodies require their spec fields', () => {
    expectTypeOf<'success' | 'status' | 'job_id' | 'audio_url' | 'audio' | 'billing' | 'meta'>().toEqualTypeOf<RequiredKeys<Schemas['CompletedJob']>>();
    expectTypeOf<'success' | 'status' | 'job_id' | 'status_url' | 'retry_after_seconds' | 'meta'>().toExtend<RequiredKeys<Schemas['ProcessingJob']>>();
    expectTypeOf<'success' | 'status' | 'job_id' | 'error' | 'meta'>().toEqualTypeOf<RequiredKeys<Schemas['FailedJob']>>();
    expectTypeOf<'success' | 'status' | 'job_id' | 'error' | 'meta'>().toEqualTypeOf<RequiredKeys<Schemas['ExpiredJob']>>();
    expectTypeOf<OptionalKeys<Schemas['Billing']>>().toEqualTypeOf<never>();
    expectTypeOf<Schemas['JobStatus']['status']>().toEqualTypeOf<'completed' | 'processing' | 'failed' | 'expired'>();
  });

  it('request: only text is required', () => {
    expectTypeOf<RequiredKeys<Schemas['TtsRequest']>>().toEqualTypeOf<'text'>();
    type SubmitBody = operations['submitTts']['requestBody'] extends { content: { 'application/json': infer B } } ? B : never;
    expectTypeOf<SubmitBody>().toEqualTypeOf<Schemas['TtsRequest']>();
  });

  it('errors: the code is the union of the 11 spec codes; details optional', () => {
    expectTypeOf<Schemas['ErrorCode']>().toEqualTypeOf<
      | 'INVALID_KEY'
      | 'INACTIVE_SUBSCRIPTION'
      | 'NO_API_ACCESS'
      | 'RATE_LIMITED'
      | 'USAGE_LIMIT_EXCEEDED'
      | 'INVALID_REQUEST'
      | 'TEXT_TOO_LONG'
      | 'NOT_FOUND'
      | 'FILE_EXPIRED'
      | 'TTS_PROVIDER_ERROR'
      | 'INTERNAL_ERROR'
    >();
    expectTypeOf<OptionalKeys<Schemas['ErrorObject']>>().toEqualTypeOf<'details'>();
  });

  it('compiles with tsc, with these assertions and one per property of every component schema of the document', () => {
    const document = loadDocument();
    const schemas = (document.components as JsonObject).schemas as JsonObject;
    const lines = [
      `import type { components } from ${JSON.stringify(`${REPO_ROOT}src/client/openapi-types.js`)};`,
      'type S = components["schemas"];',
      'type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];',
      'type RequiredKeys<T> = Exclude<keyof T, OptionalKeys<T>>;',
      'type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;',
      'const assert = <T extends true>(_value?: T) => undefined;',
    ];
    const union = (keys: string[]) => (keys.length ? keys.map((k) => JSON.stringify(k)).join(' | ') : 'never');
    let checked = 0;
    for (const [name, schema] of Object.entries(schemas)) {
      if (!isObject(schema) || !isObject(schema.properties)) continue;
      const all = Object.keys(schema.properties);
      const required = (schema.required ?? []) as string[];
      const optional = all.filter((k) => !required.includes(k));
      const s = `S[${JSON.stringify(name)}]`;
      lines.push(`assert<Equal<RequiredKeys<${s}>, ${union(required)}>>(); // ${name}: required per the document`);
      lines.push(`assert<Equal<OptionalKeys<${s}>, ${union(optional)}>>(); // ${name}: optional per the document`);
      checked++;
    }
    expect(checked).toBeGreaterThan(10);

    const dir = mkdtempSync(join(tmpdir(), 'agent-tts-client-types-'));
    try {
      const generated = join(dir, 'document-presence.ts');
      writeFileSync(generated, `${lines.join('\n')}\n`);
      const tsc = `${REPO_ROOT}node_modules/typescript/bin/tsc`;
      const args = [
        tsc,
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'ES2022',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--types',
        'node',
        fileURLToPath(import.meta.url),
        generated,
      ];
      const result = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
      expect(result.stdout + result.stderr, 'tsc output').toBe('');
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
