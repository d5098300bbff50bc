import type { RunResult } from '../results.js';
import { catalogEntries } from '../catalog.js';
import { toReportExchange } from './report-exchange.js';

/** The machine-readable result file: every rule's outcome and the exchanges behind it. */
export function jsonReport(run: RunResult): string {
  const catalog = new Map(catalogEntries().map((e) => [e.id, e]));
  return JSON.stringify(
    {
      suite: run.suite,
      started_at: run.startedAt,
      duration_ms: run.durationMs,
      profile: run.profile,
      extensions: run.extensions,
      level: run.level,
      target: { base_url: run.target.baseUrl, voices_url: run.target.voicesUrl, fixtures: run.target.fixtures },
      clock: run.clock ? { url: run.clock.url, advanced_seconds: run.clock.advancedSeconds } : undefined,
      counts: run.counts,
      rules: run.rules.map((r) => ({
        id: r.id,
        title: r.title,
        section: r.section,
        basis: r.basis.kind,
        decision: r.basis.kind === 'api' ? undefined : `docs/api-rules.md#${r.basis.decision}`,
        binding: r.binding,
        profiles: r.profiles,
        covers: catalog.get(r.id)?.covers ?? {},
        outcome: r.outcome,
        message: r.message,
        skip_kind: r.skipKind,
        duration_ms: r.durationMs,
        notes: r.notes,
        exchanges: r.exchanges,
        reproduction: r.reproduction,
      })),
      exchanges: run.exchanges.map(toReportExchange),
    },
    null,
    2,
  );
}
