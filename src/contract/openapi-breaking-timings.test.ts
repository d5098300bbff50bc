/**
 * The breaking-change gate on the word-timings extension (docs/api-rules.md#word-timings-and-captions),
 * the worked example of an additive change: the committed document as it was before the extension
 * (__fixtures__/breaking/openapi-before-timings.json, openapi/openapi.json at 5b080b8) → today's
 * document passes; variants of today's document that would break a client of the extension are refused,
 * each by a named rule at the place it breaks. (The fixture stays as it was: should a later break be
 * approved in openapi/breaking-exceptions.json, the additive check names it, and the fixture is then
 * brought forward to the document just before that break.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBreakingChanges, main } from '../../scripts/openapi-breaking.js';
import { OWN_RULES, type Finding, type OpenApiDocument } from '../../scripts/openapi-breaking/document.js';
import { REPO_ROOT } from './__fixtures__/openapi-helpers.js';

const BEFORE_FILE = join(REPO_ROOT, 'src/contract/__fixtures__/breaking/openapi-before-timings.json');
const AFTER_FILE = join(REPO_ROOT, 'openapi/openapi.json');
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
const before = readJson(BEFORE_FILE);
const after = readJson(AFTER_FILE);

// biome-ignore lint/suspicious/noExplicitAny: a variant edits the parsed document at paths this test names, and the first finding it looks for fails if one is wrong
type Doc = Record<string, any>;
/** Today's document with one change made to a copy. */
const variant = (change: (doc: Doc) => void): OpenApiDocument => {
  const doc = structuredClone(after) as Doc;
  change(doc);
  return doc as OpenApiDocument;
};
const summary = (findings: Finding[]) => findings.map((f) => `${f.rule} @ ${f.path}`);

const CAPTIONS = '/paths/~1v1~1captions~1{job_id}.{format}/get';
const SUBMIT_BODY = '/paths/~1v1~1agent-tts/post/requestBody/content/application~1json/schema';
const SUBMIT_200 = '/paths/~1v1~1agent-tts/post/responses/200/content/application~1json/schema';

describe('openapi:breaking on the word-timings extension', () => {
  it('the fixture is the document before the extension, and today’s document carries it', () => {
    expect(Object.keys(before.paths as object)).not.toContain('/v1/captions/{job_id}.{format}');
    expect(Object.keys((before.components as Doc).schemas)).not.toContain('Timestamps');
    expect(Object.keys(after.paths as object)).toContain('/v1/captions/{job_id}.{format}');
    expect(Object.keys((after.components as Doc).schemas)).toEqual(expect.arrayContaining(['Timestamps', 'Timings', 'WordTimingsFile']));
  });

  it('accepts the extension as additive: no finding from the document before it to today’s', async () => {
    expect(summary(await findBreakingChanges(before, after))).toEqual([]);
  });

  it('as `npm run openapi:breaking -- --base-file <before>`: exit 0, no unapproved change', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['--base-file', BEFORE_FILE, '--head-file', AFTER_FILE], { cwd: REPO_ROOT, log: (l) => out.push(l), error: (l) => err.push(l) });
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out.join('\n')).toContain('✓ no unapproved breaking changes');
  });

  const breaking: [string, (doc: Doc) => void, string[]][] = [
    [
      '`timestamps` made required in TtsRequest',
      (doc) => doc.components.schemas.TtsRequest.required.push('timestamps'),
      [`prevent changing request property to required @ ${SUBMIT_BODY}/properties/timestamps`, `${OWN_RULES.constraintNarrowed} @ ${SUBMIT_BODY}`],
    ],
    [
      'the `word` value removed from Timestamps',
      (doc) => {
        doc.components.schemas.Timestamps.enum = ['none'];
      },
      [`request and response property enums @ ${SUBMIT_BODY}/properties/timestamps`, `${OWN_RULES.constraintNarrowed} @ ${SUBMIT_BODY}/properties/timestamps`],
    ],
    [
      '`timings.vtt_url` removed from the response',
      (doc) => {
        const timings = doc.components.schemas.Timings;
        delete timings.properties.vtt_url;
        timings.required = timings.required.filter((name: string) => name !== 'vtt_url');
      },
      [`prevent removing response property @ ${SUBMIT_200}/properties/timings/properties/vtt_url`],
    ],
    [
      '`timings.vtt_url` made optional',
      (doc) => {
        const timings = doc.components.schemas.Timings;
        timings.required = timings.required.filter((name: string) => name !== 'vtt_url');
      },
      [`prevent making response property optional @ ${SUBMIT_200}/properties/timings/properties/vtt_url`],
    ],
    [
      'the captions operation removed',
      (doc) => {
        delete doc.paths['/v1/captions/{job_id}.{format}'];
      },
      [`prevent operation removal @ ${CAPTIONS}`],
    ],
    [
      'the `srt` format removed from the captions path',
      (doc) => {
        const format = doc.paths['/v1/captions/{job_id}.{format}'].get.parameters.find((p: Doc) => p.name === 'format');
        format.schema.enum = ['json', 'vtt'];
      },
      [`prevent path parameters enum breaking changes @ ${CAPTIONS}/parameters/1`],
    ],
    [
      'WebVTT no longer served by the captions operation',
      (doc) => {
        delete doc.paths['/v1/captions/{job_id}.{format}'].get.responses['200'].content['text/vtt'];
      },
      [`${OWN_RULES.responseMediaRemoved} @ ${CAPTIONS}/responses/200/content/text~1vtt`],
    ],
    [
      '`utf16_start` made optional in the timings file',
      (doc) => {
        const word = doc.components.schemas.WordTiming;
        word.required = word.required.filter((name: string) => name !== 'utf16_start');
      },
      [`prevent making response property optional @ ${CAPTIONS}/responses/200/content/application~1json/schema/properties/words/items/properties/utf16_start`],
    ],
    [
      'the signed captions URL made to need a key',
      (doc) => {
        doc.paths['/v1/captions/{job_id}.{format}'].get.security = [{ bearerAuth: [] }];
      },
      [`${OWN_RULES.securityTightened} @ ${CAPTIONS}/security`],
    ],
  ];

  for (const [name, change, expected] of breaking) {
    it(`refuses a breaking variant: ${name}`, async () => {
      const got = summary(await findBreakingChanges(after, variant(change)));
      for (const line of expected) expect(got, `${name}: ${line}`).toContain(line);
    });
  }
});
