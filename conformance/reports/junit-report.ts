import type { RunResult, RuleResult } from '../results.js';

const xml = (s: string) =>
  s
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!)
    // XML 1.0 forbids most control characters, which a server's answer may contain.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters XML 1.0 forbids are what this removes
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

/** JUnit XML: one testsuite per rule group (the id before the first dot), one testcase per rule. */
export function junitReport(run: RunResult): string {
  const groups = new Map<string, RuleResult[]>();
  for (const r of run.rules) {
    const group = r.id.split('.')[0]!;
    groups.set(group, [...(groups.get(group) ?? []), r]);
  }
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(
    `<testsuites name="agent-tts-conformance" tests="${run.rules.length}" failures="${run.counts.fail}" errors="${run.counts.error}" skipped="${run.counts.skip + run.counts.disabled}" time="${(run.durationMs / 1000).toFixed(3)}">`,
  );
  for (const [group, rules] of groups) {
    const count = (o: RuleResult['outcome']) => rules.filter((r) => r.outcome === o).length;
    const time = rules.reduce((t, r) => t + r.durationMs, 0) / 1000;
    lines.push(
      `  <testsuite name="${xml(group)}" tests="${rules.length}" failures="${count('fail')}" errors="${count('error')}" skipped="${count('skip') + count('disabled')}" time="${time.toFixed(3)}">`,
    );
    for (const r of rules) {
      lines.push(`    <testcase classname="conformance.${xml(group)}" name="${xml(r.id)}: ${xml(r.title)}" time="${(r.durationMs / 1000).toFixed(3)}">`);
      const message = xml(r.message ?? '');
      if (r.outcome === 'fail') lines.push(`      <failure message="${message}">${message}${r.reproduction ? `\n\n${xml(r.reproduction)}` : ''}</failure>`);
      if (r.outcome === 'error') lines.push(`      <error message="${message}">${message}</error>`);
      if (r.outcome === 'skip' || r.outcome === 'disabled') lines.push(`      <skipped message="${xml(`${r.outcome}: ${r.message ?? ''}`)}"/>`);
      const out = [`section: ${r.section}`, ...r.notes, `exchanges: ${r.exchanges.map((s) => `#${s}`).join(' ')} (see results.json / report.html)`];
      lines.push(`      <system-out>${xml(out.join('\n'))}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
