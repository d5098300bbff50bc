import { randomUUID } from 'node:crypto';
import { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';

/**
 * One deliberate fault each: put the proxy in front of a conforming deployment and the rules about
 * that behaviour must fail while the others still pass. This is how the suite shows it can fail.
 */
export const FAULTS = {
  none: 'forwards everything unchanged (the control)',
  'drop-retry-after': 'removes the Retry-After header',
  'rate-limit-as-400': 'turns every 429 into a 400',
  'leak-other-account-job': 'answers a GET that should be 404 with a job of another account (HTTP 200)',
  'omit-api-version': 'removes meta.api_version from every JSON body',
  'double-charge-replay': 'adds a minute to billing.monthly_minutes_used on every idempotent replay',
} as const;
export type Fault = keyof typeof FAULTS;

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export class FaultyProxy {
  private server?: Server;
  /** The last completed job seen, per Authorization header: what the leak fault serves to others. */
  private readonly completedJobs = new Map<string, Json>();
  /** How many answers the fault changed: a fault test that changed nothing proves nothing. */
  injected = 0;

  constructor(
    private readonly upstream: string,
    private readonly fault: Fault,
  ) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const body = await readAll(req);
      const answer = await this.forward(req, body);
      const changed = this.inject(req, answer);
      if (changed) this.injected++;
      const headers: Record<string, string | string[]> = { ...answer.headers, 'content-length': String(answer.body.length) };
      delete headers['transfer-encoding'];
      res.writeHead(answer.status, headers).end(answer.body);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`faulty proxy: ${(error as Error).message}`);
    }
  }

  private forward(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const target = new URL(req.url ?? '/', this.upstream);
    const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
    return new Promise((resolve, reject) => {
      const upstream = request(target, { method: req.method, headers }, (res) => {
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

  /** Applies the fault; returns whether the answer changed. */
  private inject(req: IncomingMessage, answer: Answer): boolean {
    const json = parseJson(answer);
    const auth = String(req.headers.authorization ?? '');
    if (json?.status === 'completed') this.completedJobs.set(auth, json);
    switch (this.fault) {
      case 'none':
        return false;
      case 'drop-retry-after':
        if (!('retry-after' in answer.headers)) return false;
        delete answer.headers['retry-after'];
        return true;
      case 'rate-limit-as-400':
        if (answer.status !== 429) return false;
        answer.status = 400;
        return true;
      case 'leak-other-account-job': {
        if (req.method !== 'GET' || answer.status !== 404 || !req.url?.startsWith('/v1/agent-tts')) return false;
        const foreign = [...this.completedJobs].find(([owner]) => owner !== auth)?.[1];
        const requestId = randomUUID();
        const leaked = foreign ? { ...foreign, meta: { ...foreign.meta, request_id: requestId } } : json;
        answer.status = 200;
        answer.headers['x-request-id'] = requestId;
        answer.body = Buffer.from(JSON.stringify(leaked));
        return true;
      }
      case 'omit-api-version':
        if (!json?.meta || !('api_version' in json.meta)) return false;
        delete json.meta.api_version;
        answer.body = Buffer.from(JSON.stringify(json));
        return true;
      case 'double-charge-replay':
        if (answer.headers['idempotent-replayed'] !== 'true' || !json?.billing) return false;
        json.billing.monthly_minutes_used += 1;
        json.billing.monthly_minutes_remaining = Math.max(0, json.billing.monthly_minutes_remaining - 1);
        answer.body = Buffer.from(JSON.stringify(json));
        return true;
    }
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
