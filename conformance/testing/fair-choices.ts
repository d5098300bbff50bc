import { randomBytes } from 'node:crypto';
import { type FaultSpec, isAudio, isSubmit, setJson } from './faults/common.js';

/**
 * The suite's fairness self-test: choices the API permits that the reference makes otherwise, one at a
 * time, made by the faulty proxy's machinery in front of the reference. A deployment making any of
 * them still follows the API, so at `--level api` every rule named must pass (a document rule may fail,
 * advisory). A choice that fails a rule of basis api is a rule holding a deployment to more than the
 * API: it is fixed, or moved to the document level (test/conformance-fairness-self-test.test.ts).
 */
export const FAIR_CHOICES = {
  'optional-fields-omitted': {
    description:
      "leaves out the fields the API does not require: audio.language and audio.duration_seconds of a completed job, progress_percent of a processing one, the error's details",
    rules: ['submit.inline-completed', 'submit.defaults', 'submit.options-used', 'job.completed-fields', 'job.get-completed', 'accept.speed-bounds'],
    change: (_s, a, json) => {
      let changed = false;
      if (json?.audio && typeof json.audio === 'object') {
        for (const field of ['language', 'duration_seconds']) {
          if (field in json.audio) {
            delete json.audio[field];
            changed = true;
          }
        }
      }
      if (json && 'progress_percent' in json) {
        delete json.progress_percent;
        changed = true;
      }
      // USAGE_LIMIT_EXCEEDED's details are the API's (§7); every other error's are optional.
      if (json?.error && typeof json.error === 'object' && 'details' in json.error && json.error.code !== 'USAGE_LIMIT_EXCEEDED') {
        delete json.error.details;
        changed = true;
      }
      return changed && setJson(a, json);
    },
  },
  'other-wordings': {
    description: 'words every error message its own way: one plain sentence naming the code, nothing of the reference’s text',
    rules: ['submit.invalid-request', 'submit.text-too-long', 'auth.malformed-header', 'auth.unknown-key', 'not-found.unknown-id', 'errors.body-shape'],
    change: (_s, a, json) => {
      if (typeof json?.error?.message !== 'string') return false;
      json.error.message = `The request could not be served (${String(json.error.code)}); see the API documentation.`;
      return setJson(a, json);
    },
  },
  'unlisted-voice-another-voice': {
    description: 'speaks a voice id its catalog does not list in a voice of its own choosing (af_heart), named in audio.voice',
    rules: ['accept.unlisted-voice'],
    rewriteBody: (s) => {
      if (!isSubmit(s) || typeof s.json?.voice !== 'string' || !/_nobody\d*$/.test(s.json.voice)) return undefined;
      return Buffer.from(JSON.stringify({ ...s.json, voice: 'af_heart' }));
    },
  },
  'other-request-ids': {
    description:
      'gives request ids of another kind of UUID (version 7, time-ordered, in capitals), the same in meta.request_id and X-Request-Id (§2.2 asks for a UUID, not a version)',
    rules: ['versioning.api-version-everywhere', 'meta.request-id', 'meta.request-id-fresh', 'errors.body-shape', 'submit.inline-completed'],
    change: (_s, a, json) => {
      if (!json?.meta?.request_id) return false;
      const id = uuidV7().toUpperCase();
      json.meta.request_id = id;
      a.headers['x-request-id'] = id;
      return setJson(a, json);
    },
  },
  'audio-refusals-403': {
    description:
      'refuses a tampered, expired or malformed audio URL as an object store does, HTTP 403 with a plain-text body, instead of 404 NOT_FOUND with the error body (the API says only that the URL is temporary)',
    rules: ['audio.download', 'audio.tampered-signature', 'audio.expired-url', 'audio-url.malformed'],
    change: (s, a, json) => {
      if (!isAudio(s) || a.status !== 404 || !json?.error) return false;
      a.status = 403;
      a.headers = { 'content-type': 'text/plain; charset=utf-8' };
      a.body = Buffer.from('This link has expired or is not valid.');
      return true;
    },
  },
  'lenient-submissions': {
    description:
      'takes what the document refuses but the API does not: a text of white space alone (spoken as a pause), a JSON body sent as text/plain, and an Idempotency-Key outside 1–255 printable characters (ignored)',
    rules: ['submit.invalid-request', 'submit.invalid-request-decided', 'idempotency.same-key-same-job'],
    rewriteHeaders: (s, headers) => {
      if (!isSubmit(s)) return false;
      let changed = false;
      const type = String(headers['content-type'] ?? '');
      if (!/json/.test(type) && /^\s*\{/.test(s.rawStart)) {
        headers['content-type'] = 'application/json';
        changed = true;
      }
      const key = headers['idempotency-key'];
      if (typeof key === 'string' && !/^[\x20-\x7e]{1,255}$/.test(key)) {
        delete headers['idempotency-key'];
        changed = true;
      }
      return changed;
    },
    rewriteBody: (s) => {
      if (!isSubmit(s) || typeof s.json?.text !== 'string' || s.json.text === '' || s.json.text.trim() !== '') return undefined;
      return Buffer.from(JSON.stringify({ ...s.json, text: '.' }));
    },
  },
  'no-request-id-header': {
    description: 'sends no X-Request-Id header (the API names meta.request_id only)',
    rules: ['meta.request-id', 'submit.inline-completed', 'errors.body-shape'],
    change: (_s, a) => {
      if (!('x-request-id' in a.headers)) return false;
      delete a.headers['x-request-id'];
      return true;
    },
  },
} satisfies Record<string, FaultSpec>;

/** A version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, then random bits. */
function uuidV7(): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  bytes.writeUInt8((bytes.readUInt8(6) & 0x0f) | 0x70, 6);
  bytes.writeUInt8((bytes.readUInt8(8) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export type FairChoice = keyof typeof FAIR_CHOICES;
