import { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';

import { type Answer, type FaultSpec, type Json, type ProxyState, type Seen, captionFile, isStream } from './faults/common.js';
import { JOB_AUDIO_AUTH_FAULTS } from './faults/jobs-audio-auth.js';
import { LIMIT_AND_BILLING_FAULTS } from './faults/limits-and-billing.js';
import { PROTOCOL_FAULTS } from './faults/protocol.js';
import { REQUEST_FAULTS } from './faults/requests.js';
import { STREAM_FAULTS } from './faults/stream.js';
import { CAPTION_FAULTS } from './faults/captions.js';
import { TIMINGS_FAULTS } from './faults/timings.js';

/**
 * The suite's self-test: a proxy in front of a conforming deployment that breaks one behaviour at a
 * time. Each fault names the rules that must catch it (run with --only); a fault no rule fails is a
 * blind spot of the suite. Faults change answers (or answer in the deployment's place) the way a
 * non-conforming deployment would: refusing valid boundary values, wrong statuses, header syntax,
 * and interactions between rules (a replay that consumes quota, a Retry-After that lies).
 */
export const FAULTS = {
  ...REQUEST_FAULTS,
  ...LIMIT_AND_BILLING_FAULTS,
  ...JOB_AUDIO_AUTH_FAULTS,
  ...PROTOCOL_FAULTS,
  ...TIMINGS_FAULTS,
  ...CAPTION_FAULTS,
  ...STREAM_FAULTS,
};

export type Fault = keyof typeof FAULTS | 'generated-only';

/** The faults only the generated rules can find. */
export const GENERATED_ONLY_FAULTS = (Object.keys(FAULTS) as (keyof typeof FAULTS)[]).filter((f) => 'generatedOnly' in FAULTS[f]);

/** Several faults at once (the fault `generated-only`: every one the hand-written rules must not see). */
function combined(specs: FaultSpec[]): FaultSpec {
  return {
    description: specs.map((s) => s.description).join('; '),
    rules: specs.flatMap((s) => s.rules),
    refuse: (seen, proxy) => specs.reduce<Answer | undefined>((answer, s) => answer ?? s.refuse?.(seen, proxy), undefined),
    change: (seen, answer, json, proxy) => specs.reduce((changed, s) => (s.change?.(seen, answer, json, proxy) ?? false) || changed, false),
  };
}

export class FaultyProxy implements ProxyState {
  private server?: Server;
  private origin = '';
  /** The last completed job seen, per Authorization header: what the leak fault serves to others. */
  readonly completedJobs = new Map<string, Json>();
  /** The query of the newest audio_url seen per job: what the expiry fault swaps in. */
  readonly freshAudio = new Map<string, string>();
  /** The query of the newest caption URL seen per `<job_id>.<format>`: what the caption faults swap in. */
  readonly freshCaptions = new Map<string, string>();
  readonly postLimited = new Set<string>();
  readonly jobsByIdempotencyKey = new Map<string, { auth: string; json: Json }>();
  /** `Bearer <revoked key>`, for the fault that answers it differently. */
  revokedAuth?: string;
  stripRange = false;
  /** How many answers the fault changed: a fault that changed nothing proves nothing. */
  injected = 0;

  constructor(
    private readonly upstream: string,
    readonly fault: Fault,
    options: { revokedKey?: string; spec?: FaultSpec } = {},
  ) {
    if (options.revokedKey) this.revokedAuth = `Bearer ${options.revokedKey}`;
    this.ownSpec = options.spec;
  }

  /** A spec of the caller's own in place of a named fault (the fairness self-test's choices, testing/fair-choices.ts). */
  private readonly ownSpec?: FaultSpec;

  get spec(): FaultSpec {
    if (this.ownSpec) return this.ownSpec;
    if (this.fault === 'generated-only') return combined(GENERATED_ONLY_FAULTS.map((f) => FAULTS[f]));
    return FAULTS[this.fault];
  }

  async listen(): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    return this.origin;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      let raw = await readAll(req);
      const url = new URL(req.url ?? '/', this.upstream);
      let json: Json;
      if (/json/.test(String(req.headers['content-type'] ?? ''))) {
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          json = undefined;
        }
      }
      const seen: Seen = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.search,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        json,
        auth: String(req.headers.authorization ?? ''),
        origin: req.headers.origin,
        rawLength: raw.length,
        rawStart: raw.subarray(0, 16).toString('latin1'),
      };
      const spec: FaultSpec = this.spec;
      let answer = spec.refuse?.(seen, this);
      if (answer) this.injected++;
      else {
        if (spec.rewrite?.(seen, url, this)) this.injected++;
        const headers: IncomingHttpHeaders = { ...req.headers, host: new URL(this.upstream).host };
        if (spec.rewriteHeaders?.(seen, headers)) this.injected++;
        const replaced = spec.rewriteBody?.(seen);
        if (replaced) {
          this.injected++;
          raw = replaced;
          headers['content-length'] = String(replaced.length);
        }
        if (this.stripRange) delete headers.range;
        // A stream is passed on as it arrives, so that the suite sees its bytes when the deployment sends them.
        if (isStream(seen) && seen.method === 'GET') return await this.forwardStream(url, headers, raw, res, seen, spec);
        answer = await this.forward(req.method ?? 'GET', url, headers, raw);
        const body = parseJson(answer);
        this.observe(seen, body);
        if (spec.change?.(seen, answer, body, this)) this.injected++;
      }
      // audio_url and the fixtures point at the deployment: make the client come back through here.
      if (/json/.test(String(answer.headers['content-type'] ?? ''))) {
        answer.body = Buffer.from(answer.body.toString('utf8').split(this.upstream).join(this.origin));
      }
      // A HEAD answer has no body: its Content-Length is the GET's, as the deployment sent it.
      const length = seen.method === 'HEAD' && answer.headers['content-length'] !== undefined ? answer.headers['content-length'] : String(answer.body.length);
      const out: Record<string, string | string[]> = { ...answer.headers, 'content-length': length };
      delete out['transfer-encoding'];
      res.writeHead(answer.status, out).end(answer.body);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`faulty proxy: ${(error as Error).message}`);
    }
  }

  private observe(seen: Seen, json: Json): void {
    if (json?.status === 'completed') {
      this.completedJobs.set(seen.auth, json);
      if (typeof json.audio_url === 'string') {
        const u = new URL(json.audio_url);
        const id = /([0-9a-f-]{36})\.mp3$/.exec(u.pathname)?.[1];
        if (id) this.freshAudio.set(id, u.search);
      }
      for (const value of Object.values<unknown>(json.timings ?? {})) {
        if (typeof value !== 'string' || !value.includes('/v1/captions/')) continue;
        const u = new URL(value);
        const file = captionFile(u.pathname);
        if (file) this.freshCaptions.set(file, u.search);
      }
    }
  }

  /**
   * A GET of a stream URL, its answer passed on piece by piece (a JSON refusal whole, with the proxy's
   * origin); the fault may change pieces, or hold them all back until the deployment's body ends. A
   * body the deployment ends abnormally is ended abnormally here too.
   */
  private forwardStream(target: URL, headers: IncomingHttpHeaders, body: Buffer, res: ServerResponse, seen: Seen, spec: FaultSpec): Promise<void> {
    return new Promise((resolve, reject) => {
      const upstream = request(target, { method: 'GET', headers }, (answer) => {
        const out: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined) out[k] = v;
        if (answer.statusCode !== 200) {
          readAll(answer).then((data) => {
            const text = /json/.test(String(out['content-type'] ?? '')) ? Buffer.from(data.toString('utf8').split(this.upstream).join(this.origin)) : data;
            delete out['transfer-encoding'];
            res.writeHead(answer.statusCode ?? 502, { ...out, 'content-length': String(text.length) }).end(text);
            resolve();
          }, reject);
          return;
        }
        res.writeHead(200, out);
        const held: Buffer[] = [];
        let index = 0;
        answer.on('data', (piece: Buffer) => {
          const changed = spec.changeStream?.(seen, piece, index++);
          if (changed) this.injected++;
          if (spec.holdStream) held.push(changed ?? piece);
          else res.write(changed ?? piece);
        });
        answer.on('end', () => {
          if (spec.holdStream && held.length > 0) this.injected++;
          res.end(Buffer.concat(held));
          resolve();
        });
        answer.on('aborted', () => {
          res.destroy();
          resolve();
        });
        answer.on('error', () => {
          res.destroy();
          resolve();
        });
      });
      upstream.on('error', reject);
      upstream.end(body);
    });
  }

  private forward(method: string, target: URL, headers: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const upstream = request(target, { method, headers }, (res) => {
        readAll(res).then((data) => {
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = v;
          resolve({ status: res.statusCode ?? 502, headers: out, body: data });
        }, reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    });
  }
}

function parseJson(answer: Answer): Json | undefined {
  if (!/json/.test(String(answer.headers['content-type'] ?? ''))) return undefined;
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
