import { readProfile, type ProfileSummary } from '../harness/profile.js';
import type { BenchContext } from '../harness/report-types.js';
import { POLL_COMPONENTS } from './poll-components.js';
import { type Params, type Ratio, type Side, type SideFigures, measureSides, pollSide, ratio, sideOf, startServer } from './poll-sides.js';

/**
 * The poll benchmark's diagnostic rows (not targets): the embedded server with one cost taken out by
 * configuration alone, each measured beside both baselines.
 */

/**
 * Configuration-only variants of the embedded server that take one cost at a time out of the path, so
 * the share of each is measured rather than guessed: a 1 s rate window keeps the in-memory sliding log
 * short under the raised limit, and LOG_LEVEL=warn drops the request log line.
 */
const DIAGNOSTICS: { name: string; env: Record<string, string> }[] = [
  { name: 'embedded, RATE_WINDOW_SECONDS=1', env: { RATE_WINDOW_SECONDS: '1' } },
  { name: 'embedded, RATE_WINDOW_SECONDS=1, LOG_LEVEL=warn', env: { RATE_WINDOW_SECONDS: '1', LOG_LEVEL: 'warn' } },
];

/** A variant measured (its figures beside the baselines', and its profile when one was taken), or why it could not run. */
export type Diagnostic = { variant: string; env: Record<string, string> } & (
  | { available: true; figures: Record<string, SideFigures>; vs_lean: Ratio; vs_hono: Ratio; profile?: ProfileSummary }
  | { available: false; reason: string }
);

/** The first lines of an error, for a report: why a side or a variant could not run. */
export function firstLines(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // The log tail is JSON lines; keep the message short and the most telling lines.
  return text.split('\n').slice(0, 4).join(' | ').slice(0, 600);
}

/** Each variant on a server of its own, measured beside the baselines; one that cannot run is reported as such. */
export async function runDiagnostics(ctx: BenchContext, baselines: { hono: Side; lean: Side }, params: Params): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  for (const [i, d] of DIAGNOSTICS.entries()) {
    ctx.log(`poll: diagnostic variant ${d.name}`);
    // A diagnostic that cannot run is reported as such; it does not cost the measured modes.
    try {
      const started = await startServer(ctx, `diag-${i + 1}`, d.env);
      try {
        const side = await pollSide('variant', started.server);
        const m = await measureSides(ctx, [baselines.hono, baselines.lean, side], params);
        await started.server.stop();
        const profile = started.profileDir ? await readProfile(started.profileDir, m.window, 'main', POLL_COMPONENTS) : undefined;
        diagnostics.push({
          variant: d.name,
          env: d.env,
          available: true,
          figures: m.figures,
          vs_lean: ratio(sideOf(m.figures, 'variant'), sideOf(m.figures, 'lean')),
          vs_hono: ratio(sideOf(m.figures, 'variant'), sideOf(m.figures, 'hono')),
          profile,
        });
      } finally {
        await started.server.stop();
      }
    } catch (error) {
      diagnostics.push({ variant: d.name, env: d.env, available: false, reason: firstLines(error) });
    }
  }
  return diagnostics;
}
