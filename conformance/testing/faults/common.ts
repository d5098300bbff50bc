import { randomUUID } from 'node:crypto';

// What every fault works with: the request as the proxy saw it, the answer it may change, and helpers.

// biome-ignore lint/suspicious/noExplicitAny: the proxy rewrites answers of any shape field by field
export type Json = any;

export interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export interface Seen {
  method: string;
  path: string;
  /** The query, with its "?". */
  query: string;
  idempotencyKey?: string;
  rawLength: number;
  /** The first bytes of the request body, as Latin-1. */
  rawStart: string;
  /** The request body as JSON, when it was JSON. */
  json?: Json;
  auth: string;
  origin?: string;
}

/** What the proxy remembers of the answers it passed, for faults that use an earlier answer in a later one (faulty-proxy.ts). */
export interface ProxyState {
  /** The last completed job seen, per Authorization header: what the leak fault serves to others. */
  readonly completedJobs: Map<string, Json>;
  /** The query of the newest audio_url seen per job: what the expiry fault swaps in. */
  readonly freshAudio: Map<string, string>;
  /** The query of the newest caption URL seen per `<job_id>.<format>`: what the caption faults swap in. */
  readonly freshCaptions: Map<string, string>;
  readonly postLimited: Set<string>;
  readonly jobsByIdempotencyKey: Map<string, { auth: string; json: Json }>;
  /** `Bearer <revoked key>`, for the fault that answers it differently. */
  revokedAuth?: string;
  stripRange: boolean;
}

export interface FaultSpec {
  description: string;
  /** The rules that must catch it: at least one of them fails. */
  rules: string[];
  /** Answers in the deployment's place (the request is not forwarded), or undefined to forward. */
  refuse?: (seen: Seen, proxy: ProxyState) => Answer | undefined;
  /** Changes the deployment's answer; returns whether it changed anything. */
  change?: (seen: Seen, answer: Answer, json: Json | undefined, proxy: ProxyState) => boolean;
  /** Rewrites the request before it is forwarded; returns whether it changed anything. */
  rewrite?: (seen: Seen, url: URL, proxy: ProxyState) => boolean;
  /** Changes the request's headers before it is forwarded; returns whether it changed anything. */
  rewriteHeaders?: (seen: Seen, headers: Record<string, string | string[] | undefined>) => boolean;
  /** Another request body to forward in place of the one sent, or undefined to forward it as it is. */
  rewriteBody?: (seen: Seen) => Buffer | undefined;
  /**
   * Only the generated rules can find it: the hand-written rules never send what sets it off. Its
   * self-test (test/conformance-generated-self-test.test.ts) runs the generated group with `args`,
   * and the hand-written catalog, through it.
   */
  generatedOnly?: { args: string[] };
  /** More settings for the self-test's run of its rules (e.g. `--extensions required`). */
  args?: string[];
  /**
   * A stream URL's answer (`/v1/stream/`), passed on as it arrives: each piece of the body in another
   * place (or undefined to pass it as it is). With `holdStream`, nothing of the body is passed on until
   * the deployment has sent all of it.
   */
  changeStream?: (seen: Seen, piece: Buffer, index: number) => Buffer | undefined;
  holdStream?: boolean;
}

export const API = '/v1/agent-tts';
export const isAudio = (s: Seen) => s.path.startsWith('/v1/audio/');
/** Whether an audio URL's query is of the issued form: expires of 1–12 digits, sig of 43 base64url characters. */
export const issuedForm = (s: Seen) => {
  const query = new URLSearchParams(s.query);
  return /^\d{1,12}$/.test(query.get('expires') ?? '') && /^[A-Za-z0-9_-]{43}$/.test(query.get('sig') ?? '');
};
export const isCaptions = (s: Seen) => s.path.startsWith('/v1/captions/');
export const isStream = (s: Seen) => s.path.startsWith('/v1/stream/');
/** The job id and format of a caption path (`/v1/captions/<job_id>.<format>`), as one key: `<job_id>.<format>`. */
export const captionFile = (path: string) => /([0-9a-f-]{36}\.(?:json|vtt|srt))$/.exec(path)?.[1];
export const isSubmit = (s: Seen) => s.method === 'POST' && s.path === API;
export const isGetJob = (s: Seen) => s.method === 'GET' && s.path === API;
export const st = (s: Seen) => typeof s.json?.voice === 'string' && s.json.voice.startsWith('st_');

export function errorAnswer(status: number, code: string, message: string, headers: Record<string, string> = {}): Answer {
  const requestId = randomUUID();
  const body = { success: false, error: { code, message }, meta: { request_id: requestId, api_version: '2026-04' } };
  return { status, headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers }, body: Buffer.from(JSON.stringify(body)) };
}

export const setJson = (answer: Answer, json: Json) => {
  answer.body = Buffer.from(JSON.stringify(json));
  return true;
};

export const header = (answer: Answer, name: string) => {
  const v = answer.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/** Turns a refusal into a 202 "processing" answer for a job that does not exist, keeping its meta. */
export function acceptAsProcessing(answer: Answer, json: Json): boolean {
  answer.status = 202;
  return setJson(answer, {
    success: true,
    status: 'processing',
    job_id: randomUUID(),
    status_url: `${API}?id=${randomUUID()}`,
    retry_after_seconds: 5,
    meta: json.meta,
  });
}
