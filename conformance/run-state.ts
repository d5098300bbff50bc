import type { Exchange } from './exchange.js';
import type { Target } from './fixtures-file.js';
import type { KeyPool, Lease } from './key-pool.js';
import type { OpenApiDocument } from './openapi-document.js';
import type { RateModel } from './rate-model.js';
import type { Settings } from './settings.js';
import type { Time } from './time.js';

export interface ScenarioOutcome {
  value?: unknown;
  error?: unknown;
  seqs: number[];
  notes: string[];
}

/** What all rules of one run share: settings, target, the document, the keys, and every exchange. */
export class RunState {
  readonly exchanges: Exchange[] = [];
  readonly scenarios = new Map<string, Promise<ScenarioOutcome>>();
  /** Leases handed from one scenario to the next; the runner releases any left at the end. */
  readonly detachedLeases: Lease[] = [];
  /** Ids of the rules this run executes (a scenario continues only when a rule needs it). */
  readonly runningRules = new Set<string>();
  private seq = 0;

  constructor(
    readonly settings: Settings,
    readonly target: Target,
    readonly doc: OpenApiDocument,
    readonly pool: KeyPool,
    readonly model: RateModel,
    /** The fixtures' acceptance keys (keys.acceptance), or the active pool when there are none. */
    readonly acceptancePool: KeyPool = pool,
  ) {}

  /** Is this one of the keys the suite throttles (an active or an acceptance key)? */
  /** How the run lets time pass: sleeping, or moving the deployment's test clock (the rate model's). */
  get time(): Time {
    return this.model.time;
  }

  isPooledKey(key: string): boolean {
    return this.pool.keys.includes(key) || this.acceptancePool.keys.includes(key);
  }

  private postsHeld?: { until: Promise<void>; owner: string };

  /** Holds back every job-creating POST but the owner's until `until` settles. */
  holdPosts(until: Promise<void>, owner: string): void {
    this.postsHeld = { until, owner };
  }

  async postsAllowed(owner: string): Promise<void> {
    if (this.postsHeld && this.postsHeld.owner !== owner) await this.postsHeld.until;
  }

  nextSeq(): number {
    return ++this.seq;
  }

  record(exchange: Exchange): void {
    this.exchanges.push(exchange);
  }
}
