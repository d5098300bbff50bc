import { defined } from './defined.js';
import { type Exchange, describe, header, jsonBody } from './exchange.js';
import { sendRaw, type SendOptions } from './http-client.js';
import type { Lease } from './key-pool.js';
import { RuleFailure, RuleSkip, SuiteError } from './outcome.js';
import type { Bucket } from './rate-model.js';
import { displayKey } from './redaction.js';
import type { RunState, ScenarioOutcome } from './run-state.js';
import type { Profile } from './settings.js';
import { API_PATH } from '../src/contract/limits.js';

export interface RequestOptions extends SendOptions {
  /** Sent as `Authorization: Bearer <key>` unless the headers carry their own Authorization. */
  key?: string;
  /** Wait for room in the key's rate-limit bucket first (default). Rate-limit rules turn it off. */
  throttle?: boolean;
  /** Origin to resolve a relative URL against; the service base URL by default. */
  base?: string;
}

export type FixtureKeyName = 'revoked' | 'inactive_subscription' | 'no_api_access' | 'usage_exhausted';

/** What a rule (or a shared scenario) works with; everything it sends is recorded under its id. */
export class RuleContext {
  readonly seqs: number[] = [];
  readonly notes: string[] = [];
  private readonly leases: Lease[] = [];

  constructor(
    readonly run: RunState,
    readonly owner: string,
  ) {}

  get settings() {
    return this.run.settings;
  }
  get target() {
    return this.run.target;
  }
  get fixtures() {
    return this.run.target.fixtures;
  }
  get doc() {
    return this.run.doc;
  }
  get profile(): Profile {
    return this.run.settings.profile;
  }
  /** Sleeps, or moves the deployment's test clock: the only way a rule lets time pass. */
  get time() {
    return this.run.time;
  }

  /**
   * Runs a sequence that must not see time pass (it must fall in one rate-limit window): no other
   * rule's wait moves a test clock meanwhile. Requests in it must not wait, so the POST hold of the
   * first job is awaited and, for `room`, the key's bucket is waited for before it starts.
   */
  async steady<T>(fn: () => Promise<T>, room?: { key: string; bucket: Bucket }): Promise<T> {
    await this.run.postsAllowed(this.owner);
    if (room) await this.run.model.room(room.key, room.bucket);
    return this.run.time.steady(fn);
  }

  note(message: string): void {
    this.notes.push(message);
  }

  /** Sends one request and records it; see RequestOptions for authentication and throttling. */
  async send(options: RequestOptions): Promise<Exchange> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const hasAuth = Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
    if (options.key !== undefined && !hasAuth) headers.authorization = `Bearer ${options.key}`;
    const key = options.key;
    const bucket: Bucket | undefined =
      key !== undefined && this.run.isPooledKey(key) ? (options.method === 'POST' ? 'post' : options.method === 'GET' ? 'get' : undefined) : undefined;
    // A bucket is only ever chosen for a pooled key: the key and its bucket together, or neither.
    const metered = key !== undefined && bucket !== undefined ? { key, bucket } : undefined;
    const throttle = options.throttle !== false;

    const attempt = async (): Promise<Exchange> => {
      if (bucket === 'post') await this.run.postsAllowed(this.owner);
      const slot = metered && throttle ? await this.run.model.acquire(metered.key, metered.bucket) : undefined;
      const exchange = await sendRaw(
        options.base ?? this.run.target.baseUrl,
        { ...options, headers, timeoutMs: options.timeoutMs ?? this.settings.requestTimeoutMs },
        this.run.nextSeq(),
        this.owner,
      );
      this.seqs.push(exchange.seq);
      this.run.record(exchange);
      if (metered) {
        const status = exchange.response?.status;
        const retryAfterSeconds = status === 429 ? (retryAfterOf(exchange) ?? this.settings.rateWindowSeconds) : undefined;
        // A POST uses quota when it may have created a job: not when it was refused (4xx) or replayed.
        const counted =
          !exchange.notSent &&
          (metered.bucket === 'get' || status === undefined || (status < 400 || status >= 500 ? header(exchange, 'idempotent-replayed') !== 'true' : false));
        if (slot) slot.settle({ counted, retryAfterSeconds });
        else this.run.model.note(metered.key, metered.bucket, counted, retryAfterSeconds);
      }
      return exchange;
    };

    let exchange = await attempt();
    if (metered && throttle && exchange.response?.status === 429) {
      // The model said the bucket had room, so something outside this run used the key (an earlier
      // run, another client). Waiting out Retry-After once keeps such leftovers from failing rules
      // that are not about rate limits; the rate-limit rules send unthrottled and see every 429.
      this.note(
        `${describe(exchange)}: 429 although ${displayKey(metered.key)}'s ${metered.bucket.toUpperCase()} bucket should have had room; retried after Retry-After`,
      );
      exchange = await attempt();
    }
    return exchange;
  }

  post(key: string, json: unknown, extra: Omit<RequestOptions, 'method' | 'url' | 'key' | 'json'> & { idempotencyKey?: string } = {}) {
    const headers = { ...(extra.headers ?? {}) };
    if (extra.idempotencyKey !== undefined) headers['idempotency-key'] = extra.idempotencyKey;
    return this.send({ ...extra, method: 'POST', url: API_PATH, key, json, headers });
  }

  getJob(key: string, jobId: string, extra: Omit<RequestOptions, 'method' | 'url' | 'key'> = {}) {
    return this.send({ ...extra, method: 'GET', url: `${API_PATH}?id=${encodeURIComponent(jobId)}`, key });
  }

  /**
   * Polls a job until it leaves `processing`, waiting retry_after_seconds between polls as a client
   * must. Returns every poll; the last is the final answer (completed, failed, expired or an error).
   */
  async pollJob(key: string, statusUrl: string, label = 'poll'): Promise<Exchange[]> {
    const deadline = this.time.now() + this.settings.jobTimeoutSeconds * 1000;
    const polls: Exchange[] = [];
    for (;;) {
      const exchange = await this.send({ method: 'GET', url: statusUrl, key, label });
      polls.push(exchange);
      const body = jsonBody(exchange);
      if (exchange.response?.status !== 200 || body?.status !== 'processing') return polls;
      const wait = Number.isInteger(body.retry_after_seconds) ? Math.min(Math.max(body.retry_after_seconds, 1), 30) : 2;
      if (this.time.now() + wait * 1000 > deadline) {
        throw new RuleFailure(`job still processing after ${this.settings.jobTimeoutSeconds} s of polling (${polls.length} polls)`);
      }
      await this.time.sleep(wait * 1000);
    }
  }

  /** Exclusive use of active keys (accounts) until the rule ends or release() is called. */
  async lease(options: { count?: number; fresh?: Bucket; specific?: string } = {}): Promise<string[]> {
    const lease = await this.run.pool.lease(options);
    this.leases.push(lease);
    return lease.keys;
  }

  /** Exclusive use of one active key (account): lease() for a single key. */
  async leaseKey(options: { fresh?: Bucket; specific?: string } = {}): Promise<string> {
    const [key] = await this.lease(options);
    return defined(key, 'the key of a one-key lease');
  }

  /** The first active key of the fixtures (the schema asks for at least one), for requests whose account does not matter. */
  activeKey(): string {
    return defined(this.fixtures.keys.active[0], 'the first active key of the fixtures file');
  }

  /** One key for a POST whose job the rule will not follow: an acceptance key when the fixtures have them. */
  async leaseForAcceptance(): Promise<Lease> {
    const lease = await this.run.acceptancePool.lease({ fresh: 'post' });
    this.leases.push(lease);
    return lease;
  }

  releaseAll(): void {
    for (const lease of this.leases.splice(0)) lease.release();
  }

  fixtureKey(name: FixtureKeyName): string {
    const key = this.fixtures.keys[name];
    if (!key) throw new RuleSkip('fixture', `the fixtures file has no keys.${name}`);
    return key;
  }

  /**
   * A shared setup step, run once per suite run however many rules use it (POST quota is scarce: one
   * per key per minute). Its exchanges are attached to every rule that uses it; its failure is theirs.
   */
  async scenario<T>(name: string, producer: (ctx: RuleContext) => Promise<T>): Promise<T> {
    let pending = this.run.scenarios.get(name);
    if (!pending) {
      const ctx = new RuleContext(this.run, `scenario:${name}`);
      pending = (async (): Promise<ScenarioOutcome> => {
        try {
          return { value: await producer(ctx), seqs: ctx.seqs, notes: ctx.notes };
        } catch (error) {
          return { error, seqs: ctx.seqs, notes: ctx.notes };
        } finally {
          ctx.releaseAll();
        }
      })();
      this.run.scenarios.set(name, pending);
    }
    const outcome = await pending;
    for (const seq of outcome.seqs) if (!this.seqs.includes(seq)) this.seqs.push(seq);
    for (const note of outcome.notes) this.notes.push(`[${name}] ${note}`);
    if (outcome.error !== undefined) {
      const error = outcome.error as Error;
      const message = `scenario ${name}: ${error.message}`;
      if (error instanceof RuleSkip) throw new RuleSkip(error.kind, message);
      if (error instanceof RuleFailure) throw new RuleFailure(message);
      if (error instanceof SuiteError) throw new SuiteError(message);
      throw new Error(`${message}\n${error.stack ?? ''}`);
    }
    return outcome.value as T;
  }

  /** A context of its own for work that outlives this one (a scenario's continuation). */
  detached(): RuleContext {
    return new RuleContext(this.run, `${this.owner}:continued`);
  }

  /** Every recorded exchange of the run (for rules that judge them all). */
  allExchanges(): Exchange[] {
    return this.run.exchanges;
  }

  /** Attaches exchanges recorded by others to this rule's report. */
  cite(exchanges: Exchange[]): void {
    for (const e of exchanges) if (!this.seqs.includes(e.seq)) this.seqs.push(e.seq);
  }
}

export function retryAfterOf(exchange: Exchange): number | undefined {
  const value = header(exchange, 'retry-after');
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
