import type { RuleResult, RunResult } from '../results.js';

const LABEL = { pass: 'PASS', fail: 'FAIL', error: 'ERROR', skip: 'SKIP', disabled: 'OFF' } as const;

export function resultLine(r: RuleResult): string {
  const why = r.outcome === 'pass' || r.outcome === 'disabled' ? '' : `\n        ${(r.message ?? '').split('\n')[0]}`;
  const reproduce = r.reproduction
    ? `\n${r.reproduction
        .split('\n')
        .map((line) => `        ${line}`)
        .join('\n')}`
    : '';
  return `${LABEL[r.outcome].padEnd(5)} ${r.id} (${(r.durationMs / 1000).toFixed(1)} s)${why}${reproduce}`;
}

export function summary(run: RunResult, files: string[]): string {
  const c = run.counts;
  const lines = [
    '',
    `agent-tts conformance, profile ${run.profile}, against ${run.target.baseUrl}: ${(run.durationMs / 1000).toFixed(1)} s, ${run.exchanges.length} exchanges`,
    `  ${c.pass} pass, ${c.fail} fail, ${c.error} error, ${c.skip} skip, ${c.disabled} disabled`,
  ];
  if (run.clock) lines.push(`  ${clockLine(run.clock)}`);
  if (run.extensions === 'none') lines.push('  extensions left out (--extensions none): the run covers the base API alone');
  const unsupported = run.rules.filter((r) => r.outcome === 'skip' && r.message?.startsWith('extension not supported')).length;
  if (unsupported > 0) {
    lines.push(
      `  ${unsupported} rule(s) of an extension this deployment does not offer were skipped; --extensions none leaves them out, --extensions required fails them`,
    );
  }
  for (const r of run.rules.filter((r) => r.outcome === 'fail' || r.outcome === 'error')) lines.push(`  ${resultLine(r)}`);
  if (files.length) lines.push(`  reports: ${files.join(', ')}`);
  return lines.join('\n');
}

/** How a run on a test clock let time pass. */
export const clockLine = (clock: NonNullable<RunResult['clock']>) =>
  `time passed on the test clock ${clock.url}: moved ${clock.advancedSeconds} s forward instead of waiting`;
