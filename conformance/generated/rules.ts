import type { Rule } from '../rule.js';
import { GENERATED_LINKS, GENERATED_REQUESTS, GENERATED_USE_AFTER_FREE } from './generation.js';
import { links } from './links.js';
import { requestsRule } from './requests.js';
import { useAfterFree } from './use-after-free.js';

/**
 * The generated rule group: requests drawn from the OpenAPI document (cases.ts), every answer held
 * to the checks of checks.ts, and sequences that follow the API's own links. fast-check draws the
 * cases from one seed, and shrinks a failing case to the smallest one that still fails; the failure
 * names the seed and prints that case as a curl command.
 */

export const generatedRules: Rule[] = [
  {
    id: GENERATED_REQUESTS,
    title:
      'Requests drawn from the OpenAPI document (valid and invalid bodies, headers, queries, keys) get documented, non-5xx answers: valid ones accepted, invalid ones refused 400, keyless ones 401',
    section: 'OpenAPI document (generated, Schemathesis checks)',
    basis: { kind: 'document', decision: 'openapi-document' },
    covers: { codes: ['INVALID_REQUEST', 'INVALID_KEY', 'NOT_FOUND'], statuses: [200, 202, 400, 401, 404] },
    full: requestsRule,
    mockSkip: "the generated requests judge a deployment's answers to inputs a mock's named examples do not depend on",
  },
  {
    id: GENERATED_LINKS,
    title:
      "Generated jobs followed through the API's links (submit → status_url → audio_url, then a replay with the same Idempotency-Key) get conforming answers and the same job",
    section: 'OpenAPI document (generated sequences)',
    basis: { kind: 'document', decision: 'openapi-document' },
    full: async (ctx) => {
      const outcome = await links(ctx);
      if (outcome.failure) throw outcome.failure;
    },
    mockSkip: 'a mock keeps no jobs to follow',
  },
  {
    id: GENERATED_USE_AFTER_FREE,
    title: "An expired audio URL and a job past its retention stay gone (404 NOT_FOUND): moved there on a test clock, else the fixtures' expired audio URL",
    section: 'docs/api-rules.md#retention (generated sequences)',
    basis: { kind: 'document', decision: 'retention' },
    // Last: on a test clock it moves time by a month, which no other rule may see.
    phase: 'final',
    full: useAfterFree,
    mockSkip: 'a mock keeps no jobs that expire',
  },
];
