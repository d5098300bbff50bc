import { CATALOG, catalogEntries } from './catalog.js';
import { FixturesError, resolveTarget } from './fixtures-file.js';
import { OpenApiDocument } from './openapi-document.js';
import { Redactor, secretsOf } from './redaction.js';
import { resultLine, summary } from './reports/console-report.js';
import { writeReports } from './reports/write-reports.js';
import { failsStrict, isFailing } from './results.js';
import { unreachable } from './reachability.js';
import { runSuite } from './runner.js';
import { unmatchedPatterns } from './selection.js';
import { helpText } from './help-text.js';
import { SettingsError, readSettings } from './settings.js';
import { ClockError, timeFor } from './time.js';

/** --list: every rule with its profiles, basis, section and title, then the count by basis. */
function printRules(): void {
  const entries = catalogEntries();
  for (const rule of entries) {
    console.log(`${rule.id.padEnd(44)} ${rule.profiles.join(',').padEnd(10)} ${rule.basis.kind.padEnd(10)} ${rule.section}`);
    if (rule.basis.kind !== 'api') console.log(`    ${rule.basis.kind === 'document' ? 'decision' : 'extension'}: docs/api-rules.md#${rule.basis.decision}`);
    console.log(`    ${rule.title}`);
  }
  const count = (kind: string) => entries.filter((e) => e.basis.kind === kind).length;
  console.log(
    `\n${entries.length} rules: ${count('api')} api, ${count('document')} document (binding at --level document, advisory at --level api), ${count('extension')} extension`,
  );
}

/**
 * The command line: 0 when nothing failed or errored (with --strict: and nothing was skipped or
 * disabled), 1 otherwise, 2 when it could not start (bad
 * settings, an --only/--skip pattern that matches no rule, an unusable fixtures file or URL, or a
 * deployment that does not answer at all).
 */
async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let settings;
  try {
    settings = readSettings(argv, env, (line) => console.error(`agent-tts-conformance: ${line}`));
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(`agent-tts-conformance: ${error.message}\n\n${helpText()}`);
    return 2;
  }
  if (settings.help) {
    console.log(helpText());
    return 0;
  }
  if (settings.list) {
    printRules();
    return 0;
  }
  const ids = CATALOG.map((rule) => rule.id);
  const unmatched = (['only', 'skip'] as const)
    .map((flag) => ({ flag, patterns: unmatchedPatterns(settings[flag], ids) }))
    .filter(({ patterns }) => patterns.length > 0);
  if (unmatched.length > 0) {
    for (const { flag, patterns } of unmatched) {
      console.error(
        `agent-tts-conformance: --${flag}: no rule matches ${patterns.map((p) => JSON.stringify(p)).join(', ')} ` +
          '(a pattern is a rule id or a glob such as auth.*; agent-tts-conformance --list prints the rule ids)',
      );
    }
    return 2;
  }
  let target;
  try {
    target = resolveTarget(settings);
  } catch (error) {
    if (!(error instanceof FixturesError)) throw error;
    console.error(`agent-tts-conformance: ${error.message}`);
    return 2;
  }
  const unanswered = await unreachable(target, settings.requestTimeoutMs);
  if (unanswered.length > 0) {
    for (const line of unanswered) console.error(`agent-tts-conformance: ${line}`);
    return 2;
  }
  let time;
  try {
    time = await timeFor(target.fixtures.clock?.url, settings.requestTimeoutMs);
  } catch (error) {
    if (!(error instanceof ClockError)) throw error;
    console.error(`agent-tts-conformance: ${error.message}`);
    return 2;
  }
  const redactor = new Redactor(secretsOf(target.fixtures));
  const print = (text: string) => console.log(redactor.text(text));
  if (settings.profile === 'full' && target.fixtures.keys.active.length < 8) {
    print(`note: ${target.fixtures.keys.active.length} active keys; with fewer than 8 the rules that POST queue for them and the run takes longer`);
  }
  const run = await runSuite(settings, target, OpenApiDocument.load(), {
    time,
    onResult: (result) => {
      if (!settings.quiet && result.outcome !== 'disabled') print(resultLine(result));
    },
  });
  const files = writeReports(run, settings.outputDir, redactor);
  print(summary(run, files));
  if (settings.strict && failsStrict(run)) {
    const left = run.rules.filter((r) => r.binding && (r.outcome === 'skip' || r.outcome === 'disabled'));
    print(
      `--strict: ${left.length} binding rule(s) did not run to a verdict, so this is not a certification run: ${left.map((r) => `${r.id} (${r.outcome}: ${r.message ?? ''})`).join('; ')}`,
    );
    return 1;
  }
  return isFailing(run) ? 1 : 0;
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`agent-tts-conformance: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 2;
  },
);
