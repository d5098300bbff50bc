import { RuleFailure, RuleSkip } from './outcome.js';
import type { RuleContext } from './rule-context.js';
import type { ExtensionMode } from './settings.js';

/**
 * Extensions beyond the base API: additive features a deployment may offer or not. A deployment that
 * does not offer one ignores the request field that asks for it (the API ignores unknown fields), so
 * the suite learns whether it is offered from the answer: a job that asked for word timings and
 * completed without `timings` was served by a deployment that does not offer them, and a processing
 * answer without `stream_url` by one that does not stream audio.
 *
 * What then happens is the run's `--extensions` setting: `optional` (default) reports the extension's
 * rules as skipped, "extension not supported", which passes a plain run and fails a `--strict` one (a
 * certification covers the whole API); `required` fails them; `none` leaves them out of the run, so
 * `--strict` certifies the base API alone. Rules that hold for every deployment (no `timings` unless
 * asked) run under `optional` and `required` alike.
 */
const EXTENSIONS = {
  'word-timings': {
    name: 'word timings and captions',
    /** The request fields that ask for it: the generated rules draw their valid values, never broken ones. */
    requestFields: ['timestamps'],
    docs: 'docs/api-rules.md#word-timings-and-captions',
  },
  streaming: {
    name: 'streaming audio',
    /** Nothing asks for it: a processing answer carries `stream_url` or not. */
    requestFields: [],
    docs: 'docs/api-rules.md#streaming-audio',
  },
} as const;

export type Extension = keyof typeof EXTENSIONS;

/** The request fields of every extension: a deployment that does not offer one ignores them, whatever their value. */
export const EXTENSION_REQUEST_FIELDS: ReadonlySet<string> = new Set(Object.values(EXTENSIONS).flatMap((e) => e.requestFields));

/** The rules a run executes under its extension mode: `none` leaves the extensions' rules out. */
export function rulesFor<R extends { extension?: Extension }>(rules: readonly R[], mode: ExtensionMode): readonly R[] {
  return mode === 'none' ? rules.filter((rule) => !rule.extension) : rules;
}

/**
 * The deployment ignored what asks for the extension (`evidence` says how it showed): the rule is
 * skipped as "extension not supported", or fails under `--extensions required`.
 */
export function notOffered(ctx: RuleContext, extension: Extension, evidence: string): never {
  const message = `extension not supported: ${EXTENSIONS[extension].name} (${EXTENSIONS[extension].docs}); ${evidence}`;
  if (ctx.settings.extensions === 'required') throw new RuleFailure(`${message}; --extensions required asks for it`);
  throw new RuleSkip('feature', message);
}
