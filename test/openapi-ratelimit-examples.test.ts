import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LIMITS } from '../src/contract/limits.js';
import { parseRateLimit, parseRateLimitPolicy } from '../src/contract/ratelimit-headers.js';
import { loadConfig } from '../src/server/config.js';

/**
 * The rate-limit headers of every response of the generated OpenAPI document (the mock serves them as
 * they are) against the policy they name: the policy is the operation's own ("post" on POST, "get"
 * on GET), its quota and window are the server's defaults, and on a 429 Retry-After is the `t` of
 * RateLimit, nothing is left, and each example's message names the same policy and the same wait.
 */
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked field by field
type Json = any;

const DOCUMENT = join(import.meta.dirname, '..', 'openapi', 'openapi.yaml');
const scratch = mkdtempSync(join(tmpdir(), 'agent-tts-ratelimit-examples-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The server's defaults: what a deployment without RATE_* settings sends. */
function serverDefaults() {
  const { rateLimits } = loadConfig({ DATA_DIR: join(scratch, 'data') });
  return { post: rateLimits.post, get: rateLimits.get, windowSeconds: rateLimits.windowMs / 1000 };
}

const headerExample = (headers: Json, name: string): string | undefined => {
  const entry = Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1] as Json;
  return entry?.example ?? entry?.schema?.example;
};

/** Every disagreement between a response's rate-limit headers, its body examples and the policy they name. */
function rateLimitExampleProblems(doc: Json, defaults: { post: number; get: number; windowSeconds: number }): { checked: string[]; problems: string[] } {
  const problems: string[] = [];
  const checked: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (!operation?.responses) continue;
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const policyValue = headerExample(response.headers, 'RateLimit-Policy');
        const stateValue = headerExample(response.headers, 'RateLimit');
        const retryAfter = headerExample(response.headers, 'Retry-After');
        const declared = Object.keys(response.headers ?? {}).map((k) => k.toLowerCase());
        if (!declared.includes('ratelimit-policy') && !declared.includes('ratelimit')) continue;
        checked.push(where);
        if (policyValue === undefined || stateValue === undefined) {
          problems.push(`${where}: RateLimit-Policy and RateLimit need an example each (the mock sends it)`);
          continue;
        }
        const expected = method === 'post' ? 'post' : method === 'get' && path === '/v1/agent-tts' ? 'get' : undefined;
        if (!expected) {
          problems.push(`${where}: carries rate-limit headers, but no policy applies to this operation`);
          continue;
        }
        const [policy] = parseRateLimitPolicy(policyValue);
        const [state] = parseRateLimit(stateValue);
        const quota = expected === 'post' ? defaults.post : defaults.get;
        if (policy!.name !== expected)
          problems.push(`${where}: RateLimit-Policy ${policyValue} names "${policy!.name}", the operation's policy is "${expected}"`);
        if (state!.name !== expected) problems.push(`${where}: RateLimit ${stateValue} names "${state!.name}", the operation's policy is "${expected}"`);
        if (policy!.quota !== quota) problems.push(`${where}: RateLimit-Policy ${policyValue} has q=${policy!.quota}, the server's default is ${quota}`);
        if (policy!.windowSeconds !== defaults.windowSeconds)
          problems.push(`${where}: RateLimit-Policy ${policyValue} has w=${policy!.windowSeconds}, the server's default window is ${defaults.windowSeconds}`);
        if (state!.remaining > quota) problems.push(`${where}: RateLimit ${stateValue} leaves r=${state!.remaining} of a quota of ${quota}`);
        if (state!.resetSeconds === undefined || state!.resetSeconds > defaults.windowSeconds) {
          problems.push(`${where}: RateLimit ${stateValue} has t=${state!.resetSeconds}, outside the window of ${defaults.windowSeconds} s`);
        }
        if (status !== '429') {
          if (retryAfter !== undefined) problems.push(`${where}: Retry-After ${retryAfter} on an answer that is not a 429`);
          continue;
        }
        if (state!.remaining !== 0) problems.push(`${where}: a 429 whose RateLimit ${stateValue} still leaves r=${state!.remaining}`);
        if (retryAfter === undefined) {
          problems.push(`${where}: a 429 without a Retry-After example`);
          continue;
        }
        if (Number(retryAfter) !== Math.max(1, state!.resetSeconds ?? 0))
          problems.push(`${where}: Retry-After ${retryAfter} beside RateLimit ${stateValue}: the wait must be t (at least 1)`);
        const examples = Object.entries<Json>(response.content?.['application/json']?.examples ?? {});
        if (examples.length === 0) problems.push(`${where}: a 429 without a named body example`);
        for (const [name, example] of examples) {
          const error = example.value?.error;
          if (error?.code !== 'RATE_LIMITED') problems.push(`${where} example ${name}: code ${error?.code}, not RATE_LIMITED`);
          const m = /\b(GET|POST) requests\b.*\((\d+) per (\d+) s\).*\bWait (\d+) seconds?\b/.exec(error?.message ?? '');
          if (!m) {
            problems.push(`${where} example ${name}: the message "${error?.message}" does not name the method, quota, window and wait`);
            continue;
          }
          const said = `${m[1]} ${m[2]} per ${m[3]} s, wait ${m[4]}`;
          const meant = `${expected.toUpperCase()} ${quota} per ${defaults.windowSeconds} s, wait ${retryAfter}`;
          if (said !== meant) problems.push(`${where} example ${name}: the message says "${said}", the headers "${meant}"`);
        }
      }
    }
  }
  return { checked, problems };
}

describe('the rate-limit headers of the OpenAPI document’s examples', () => {
  const doc = parse(readFileSync(DOCUMENT, 'utf8'));

  it('name the policy of their operation, at the server’s default limits, and a 429’s Retry-After and message agree with them', () => {
    const defaults = serverDefaults();
    // The defaults of the server are the contract's limits.
    expect(defaults).toEqual({ post: LIMITS.postPerMinute, get: LIMITS.getPerMinute, windowSeconds: LIMITS.rateWindowSeconds });
    const { checked, problems } = rateLimitExampleProblems(doc, defaults);
    // Both 429s and the other authenticated answers of both operations were looked at.
    expect(checked).toEqual(
      expect.arrayContaining(['POST /v1/agent-tts 429', 'GET /v1/agent-tts 429', 'POST /v1/agent-tts 200', 'GET /v1/agent-tts 200', 'GET /v1/agent-tts 404']),
    );
    expect(problems).toEqual([]);
  });

  it('finds a GET 429 that carries the POST policy and message, and a Retry-After beside another t', () => {
    const copy = structuredClone(doc);
    const get429 = copy.paths['/v1/agent-tts'].get.responses['429'];
    const post429 = copy.paths['/v1/agent-tts'].post.responses['429'];
    get429.headers = structuredClone(post429.headers);
    get429.content = structuredClone(post429.content);
    post429.headers['Retry-After'].example = '42';
    post429.headers.RateLimit.example = '"post";r=0;t=60';
    const { problems } = rateLimitExampleProblems(copy, serverDefaults());
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^GET \/v1\/agent-tts 429: RateLimit-Policy .* names "post"/),
        expect.stringMatching(/^GET \/v1\/agent-tts 429 example rate_limited: the message says "POST 1 per 60 s/),
        expect.stringMatching(/^POST \/v1\/agent-tts 429: Retry-After 42 beside RateLimit "post";r=0;t=60/),
      ]),
    );
  });
});
