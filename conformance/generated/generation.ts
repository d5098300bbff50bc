import { CURATED_VOICES } from '../../src/contract/voices.js';
import { VOICES_PATH } from '../../src/contract/limits.js';
import { skip } from '../assertions.js';
import { describe, jsonBody } from '../exchange.js';
import type { RuleContext } from '../rule-context.js';
import type { RunState } from '../run-state.js';
import { shellQuote } from './curl.js';
import type { Offered } from './request-schemas.js';

/**
 * What the generated rules share: their ids, the run's seed, how many requests to generate, the
 * voices the deployment offers, and the command that runs a failing rule again.
 */

export const GENERATED_REQUESTS = 'generated.requests';
export const GENERATED_LINKS = 'generated.links';
export const GENERATED_USE_AFTER_FREE = 'generated.use-after-free';

export function generatedRuns(ctx: RuleContext): number {
  const runs = ctx.settings.generate;
  if (runs === 0) skip('feature', 'generation is off (--generate 0)');
  return runs;
}

const seeds = new WeakMap<RunState, number>();

/** The run's seed: --seed, or one drawn once per run (and printed, so the run can be repeated). */
export function runSeed(ctx: RuleContext): number {
  if (ctx.settings.seed !== undefined) return ctx.settings.seed;
  let seed = seeds.get(ctx.run);
  if (seed === undefined) {
    seed = Math.floor(Math.random() * 0x7fffffff);
    seeds.set(ctx.run, seed);
  }
  return seed;
}

/** The voices the deployment offers: its catalog (voices_url) when the fixtures name one, else the curated voices of §4.4. */
export function offeredVoices(ctx: RuleContext): Promise<Offered> {
  return ctx.scenario('generated-voices', async (s) => {
    const voicesUrl = s.target.voicesUrl;
    if (voicesUrl) {
      const exchange = await s.send({
        method: 'GET',
        url: VOICES_PATH,
        base: voicesUrl.replace(/\/+$/, ''),
        label: 'voice catalog, for the generated requests',
      });
      const body = jsonBody(exchange);
      const list: unknown[] = Array.isArray(body?.voices) ? body.voices : [];
      const ids = list.map((v) => (v && typeof v === 'object' ? (v as { id?: unknown }).id : undefined)).filter((id): id is string => typeof id === 'string');
      // Sorted, so a seed draws the same voices from the same catalog however the deployment orders it.
      if (ids.length > 0) return { voices: [...new Set(ids)].sort() };
      s.note(`${describe(exchange)}: no voices listed; drawing from the curated voices instead`);
    }
    return { voices: CURATED_VOICES.map((v) => v.id).sort() };
  });
}

export const reproduceCommand = (ctx: RuleContext, rule: string, runs: number, seed: number) =>
  `agent-tts-conformance --fixtures ${shellQuote(ctx.target.source)} --only ${rule} --generate ${runs} --seed ${seed}`;
