import { advisoryProblems, type RuleResult, type RunResult } from '../results.js';
import { basisLabel } from '../rule.js';

const LABEL = { pass: 'PASS', fail: 'FAIL', error: 'ERROR', skip: 'SKIP', disabled: 'OFF' } as const;

export function resultLine(r: RuleResult): string {
  const why = r.outcome === 'pass' || r.outcome === 'disabled' ? '' : `\n        ${(r.message ?? '').split('\n')[0]}`;
  const reproduce = r.reproduction
    ? `\n${r.reproduction
        .split('\n')
        .map((line) => `        ${line}`)
        .join('\n')}`
    : '';
  const advisory = r.binding ? '' : ' advisory';
  return `${LABEL[r.outcome].padEnd(5)} ${r.id} [${basisLabel(r.basis, r.section)}${advisory}] (${(r.durationMs / 1000).toFixed(1)} s)${why}${reproduce}`;
}

export function summary(run: RunResult, files: string[]): string {
  const c = run.counts;
  const lines = [
    '',
    `agent-tts conformance, level ${run.level}, profile ${run.profile}, against ${run.target.baseUrl}: ${(run.durationMs / 1000).toFixed(1)} s, ${run.exchanges.length} exchanges`,
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
  const advisory = advisoryProblems(run);
  if (run.level === 'api') {
    lines.push(
      `  level api: the ${run.rules.filter((r) => !r.binding && r.outcome !== 'disabled').length} rule(s) run of this project's own decisions (basis document) are advisory: ${advisory.length} of them did not pass, which does not fail the run (--level document makes them binding)`,
    );
  }
  for (const r of run.rules.filter((r) => r.binding && (r.outcome === 'fail' || r.outcome === 'error'))) lines.push(`  ${resultLine(r)}`);
  for (const r of advisory) lines.push(`  ${resultLine(r)}`);
  if (files.length) lines.push(`  reports: ${files.join(', ')}`);
  return lines.join('\n');
}

/** How a run on a test clock let time pass. */
export const clockLine = (clock: NonNullable<RunResult['clock']>) =>
  `time passed on the test clock ${clock.url}: moved ${clock.advancedSeconds} s forward instead of waiting`;
