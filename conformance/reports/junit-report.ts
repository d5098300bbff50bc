import type { RunResult, RuleResult } from '../results.js';
import { basisLabel } from '../rule.js';

const xml = (s: string) =>
  s
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c)
    // XML 1.0 forbids most control characters, which a server's answer may contain.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters XML 1.0 forbids are what this removes
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');

/** How JUnit counts a result: an advisory rule that did not pass is a skipped testcase, not a failure. */
function junitKind(r: RuleResult): 'failure' | 'error' | 'skipped' | 'passed' {
  if (r.outcome === 'skip' || r.outcome === 'disabled' || (!r.binding && r.outcome !== 'pass')) return 'skipped';
  return r.outcome === 'fail' ? 'failure' : r.outcome === 'error' ? 'error' : 'passed';
}

const tally = (rules: RuleResult[], kind: ReturnType<typeof junitKind>) => rules.filter((r) => junitKind(r) === kind).length;

/** JUnit XML: one testsuite per rule group (the id before the first dot), one testcase per rule. */
export function junitReport(run: RunResult): string {
  const groups = new Map<string, RuleResult[]>();
  for (const r of run.rules) {
    const [group = r.id] = r.id.split('.');
    groups.set(group, [...(groups.get(group) ?? []), r]);
  }
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  lines.push(
    `<testsuites name="agent-tts-conformance" tests="${run.rules.length}" failures="${tally(run.rules, 'failure')}" errors="${tally(run.rules, 'error')}" skipped="${tally(run.rules, 'skipped')}" time="${(run.durationMs / 1000).toFixed(3)}">`,
  );
  for (const [group, rules] of groups) {
    const time = rules.reduce((t, r) => t + r.durationMs, 0) / 1000;
    lines.push(
      `  <testsuite name="${xml(group)}" tests="${rules.length}" failures="${tally(rules, 'failure')}" errors="${tally(rules, 'error')}" skipped="${tally(rules, 'skipped')}" time="${time.toFixed(3)}">`,
    );
    for (const r of rules) {
      lines.push(`    <testcase classname="conformance.${xml(group)}" name="${xml(r.id)}: ${xml(r.title)}" time="${(r.durationMs / 1000).toFixed(3)}">`);
      lines.push(
        `      <properties><property name="basis" value="${r.basis.kind}"/><property name="binding" value="${r.binding}"/>${r.basis.kind === 'api' ? '' : `<property name="decision" value="docs/api-rules.md#${xml(r.basis.decision)}"/>`}</properties>`,
      );
      const message = xml(r.message ?? '');
      if (r.outcome === 'fail' && !r.binding) lines.push(`      <skipped message="${xml(`advisory at --level api, did not pass: ${r.message ?? ''}`)}"/>`);
      else if (r.outcome === 'error' && !r.binding) lines.push(`      <skipped message="${xml(`advisory at --level api, errored: ${r.message ?? ''}`)}"/>`);
      else if (r.outcome === 'fail')
        lines.push(`      <failure message="${message}">${message}${r.reproduction ? `\n\n${xml(r.reproduction)}` : ''}</failure>`);
      else if (r.outcome === 'error') lines.push(`      <error message="${message}">${message}</error>`);
      if (r.outcome === 'skip' || r.outcome === 'disabled') lines.push(`      <skipped message="${xml(`${r.outcome}: ${r.message ?? ''}`)}"/>`);
      const out = [
        `section: ${r.section}`,
        `basis: ${basisLabel(r.basis, r.section)}${r.binding ? '' : ' (advisory at --level api)'}`,
        ...r.notes,
        `exchanges: ${r.exchanges.map((s) => `#${s}`).join(' ')} (see results.json / report.html)`,
      ];
      lines.push(`      <system-out>${xml(out.join('\n'))}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}
