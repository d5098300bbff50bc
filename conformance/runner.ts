import { CATALOG } from './catalog.js';
import { defined } from './defined.js';
import { rulesFor } from './extensions.js';
import type { Target } from './fixtures-file.js';
import { KeyPool, NotEnoughKeys } from './key-pool.js';
import type { OpenApiDocument } from './openapi-document.js';
import { RuleFailure, RuleSkip, SuiteError } from './outcome.js';
import { RateModel } from './rate-model.js';
import { type RuleResult, type RunResult, countOutcomes } from './results.js';
import type { Rule } from './rule.js';
import { profilesOf } from './rule.js';
import { RuleContext } from './rule-context.js';
import { RunState } from './run-state.js';
import { disabledReason } from './selection.js';
import type { Level, Settings } from './settings.js';
import { type Time, timeFor } from './time.js';

export interface RunOptions {
  rules?: readonly Rule[];
  /** Called as each rule ends (the console reporter prints progress). */
  onResult?: (result: RuleResult) => void;
  /** How time passes; by default the fixtures' test clock (clock.url) when they name one, else real time. */
  time?: Time;
}

/**
 * Runs the selected rules against the target: main rules concurrently (each holding its keys), then
 * the final rules, which also judge every exchange the main ones recorded.
 */
export async function runSuite(settings: Settings, target: Target, doc: OpenApiDocument, options: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  const time = options.time ?? (await timeFor(target.fixtures.clock?.url, settings.requestTimeoutMs));
  const model = new RateModel({ post: settings.postLimit, get: settings.getLimit, windowMs: settings.rateWindowSeconds * 1000 }, time);
  // A mock keeps no accounts or limits: nothing to lease or throttle.
  const pool = new KeyPool(settings.profile === 'mock' ? [] : target.fixtures.keys.active, model);
  const acceptanceKeys = settings.profile === 'mock' ? [] : (target.fixtures.keys.acceptance ?? []);
  const acceptancePool = acceptanceKeys.length > 0 ? new KeyPool(acceptanceKeys, model) : pool;
  const level = settings.level;
  const run = new RunState(settings, target, doc, pool, model, acceptancePool);
  const rules = rulesFor(options.rules ?? CATALOG, settings.extensions);
  const results = new Map<string, RuleResult>();

  const settle = (result: RuleResult) => {
    results.set(result.id, result);
    options.onResult?.(result);
  };

  const runnable: Rule[] = [];
  for (const rule of rules) {
    const reason = disabledReason(rule.id, settings.only, settings.skip);
    if (reason) settle(base(rule, 'disabled', reason, level));
    else if (settings.profile === 'mock' && !rule.mock)
      settle({ ...base(rule, 'skip', `not applicable to profile mock: ${rule.mockSkip ?? 'needs a stateful deployment'}`, level), skipKind: 'profile' });
    else runnable.push(rule);
  }

  for (const rule of runnable) run.runningRules.add(rule.id);
  const execute = (rule: Rule) => runRule(run, rule).then(settle);
  await inBatches(
    runnable.filter((r) => r.phase !== 'final'),
    settings.concurrency,
    execute,
  );
  await inBatches(
    runnable.filter((r) => r.phase === 'final'),
    settings.concurrency,
    execute,
  );
  for (const lease of run.detachedLeases) lease.release();

  const ordered = rules.map((r) => defined(results.get(r.id), `the result of rule ${r.id}`));
  return {
    suite: 'agent-tts-conformance',
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    profile: settings.profile,
    extensions: settings.extensions,
    level,
    target: { baseUrl: target.baseUrl, voicesUrl: target.voicesUrl, fixtures: target.source },
    clock: time.clock,
    counts: countOutcomes(ordered),
    rules: ordered,
    exchanges: run.exchanges,
  };
}

async function runRule(run: RunState, rule: Rule): Promise<RuleResult> {
  const ctx = new RuleContext(run, rule.id);
  const started = Date.now();
  const finish = (outcome: RuleResult['outcome'], message?: string, skipKind?: RuleResult['skipKind']): RuleResult => ({
    ...base(rule, outcome, message, run.settings.level),
    skipKind,
    durationMs: Date.now() - started,
    notes: ctx.notes,
    exchanges: [...ctx.seqs].sort((a, b) => a - b),
  });
  try {
    // A rule without a mock body is settled as skipped before it is run in the mock profile.
    const body = run.settings.profile === 'mock' ? defined(rule.mock, `the mock body of rule ${rule.id}`) : rule.full;
    await body(ctx);
    return finish('pass');
  } catch (error) {
    if (error instanceof RuleSkip) return finish('skip', error.message, error.kind);
    if (error instanceof NotEnoughKeys) return finish('skip', error.message, 'fixture');
    if (error instanceof RuleFailure) {
      const { reproduction } = error;
      return { ...finish('fail', error.message), ...(reproduction !== undefined ? { reproduction } : {}) };
    }
    if (error instanceof SuiteError) return finish('error', error.message);
    const e = error as Error;
    return finish('error', `the suite broke: ${e.stack ?? e.message ?? String(error)}`);
  } finally {
    ctx.releaseAll();
  }
}

function base(rule: Rule, outcome: RuleResult['outcome'], message: string | undefined, level: Level): RuleResult {
  return {
    id: rule.id,
    title: rule.title,
    section: rule.section,
    basis: rule.basis,
    binding: rule.basis.kind !== 'document' || level === 'document',
    profiles: profilesOf(rule),
    outcome,
    message,
    durationMs: 0,
    notes: [],
    exchanges: [],
  };
}

/** Runs every item with at most `limit` running at once. */
async function inBatches<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  // One iterator shared by the workers: each takes the next item not yet taken.
  const queue = items.values();
  const worker = async () => {
    for (const item of queue) await fn(item);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
