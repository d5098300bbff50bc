import { SETTINGS } from './settings.js';

/** `--help`: every setting of SETTINGS with its flag, variable and default, then what the exit code says. */
export function helpText(): string {
  const lines = ['Usage: agent-tts-conformance [options]', '', 'Runs the conformance rules against a deployment of the TTS job API.', ''];
  for (const s of SETTINGS) {
    const flag = `--${s.flag}${s.kind === 'bool' ? '' : ' <value>'}`;
    const env = s.env ? `  [${s.env}]` : '';
    const dflt = s.defaultValue ? ` (default ${s.defaultValue})` : '';
    lines.push(`  ${flag}${env}`, `      ${s.description}${dflt}`);
  }
  const former = SETTINGS.flatMap(({ formerly, flag }) => (formerly ? [`--${formerly.flag}${formerly.env ? ` (${formerly.env})` : ''} for --${flag}`] : []));
  if (former.length > 0) lines.push('', `Former names, still read with a notice on stderr: ${former.join(', ')}.`);
  lines.push(
    '',
    'Before any rule runs, one GET of <base-url>/v1/agent-tts without a key (and of <voices-url>/api/v1/voices when',
    'there is a voices URL) checks that something answers there: any HTTP status will do; no answer within',
    '--request-timeout-ms (connection refused, unknown host, TLS failure, timeout) stops the run.',
    '',
    'Exit code: 0 when no rule failed or errored (with --strict: and none was skipped or disabled), 1 otherwise,',
    '2 for unusable settings or fixtures: a bad value,',
    'a URL that is not an absolute http(s) URL, an --only or --skip pattern that matches no rule (see --list),',
    'or a base or voices URL where nothing answers.',
  );
  return lines.join('\n');
}
