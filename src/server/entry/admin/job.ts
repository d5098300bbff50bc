import { stat } from 'node:fs/promises';
import { isLanguageCode } from '@agent-tts/contract/languages.js';
import { parseVoice, resolveLanguage } from '@agent-tts/contract/voices.js';
import { type AdminCommand, fail } from './context.js';

/**
 * `job import-legacy --account <id> --expires-at <ISO date> [--audio <file.mp3>] [--voice] [--speed]
 * [--language] [--duration]`: a completed job of an earlier system, on the account's first active key.
 */
const importLegacy: AdminCommand = async ({ values, store, audio, admin, print }) => {
  if (!values.account || !values['expires-at']) fail('job import-legacy needs --account and --expires-at', 2);
  const expiresAt = Date.parse(values['expires-at']);
  if (Number.isNaN(expiresAt)) fail('--expires-at must be an ISO date', 2);
  const voice = parseVoice(values.voice ?? 'af_heart') ?? fail('--voice is not a valid voice id', 2);
  const language = values.language;
  if (language !== undefined && !isLanguageCode(language)) fail('--language must be a Supertonic language code (docs/api-rules.md#voices-and-languages)', 2);
  const keys = await store.listKeys(values.account);
  const owner = keys.find((k) => !k.revokedAt) ?? keys[0] ?? fail('the account has no key', 2);
  const size = values.audio ? (await stat(values.audio)).size : undefined;
  const job = await admin.importLegacyJob({
    accountId: values.account,
    keyPublicId: owner.publicId,
    expiresAt,
    voice: voice.id,
    speed: Number(values.speed ?? 1),
    language: resolveLanguage(voice, language as never),
    durationSeconds: values.duration ? Number(values.duration) : undefined,
    fileSizeBytes: size,
  });
  if (values.audio) await audio.putFile(job.id, values.audio);
  print(`legacy job ${job.id} (expires ${new Date(expiresAt).toISOString()})`, { job_id: job.id });
};

/** The `job …` commands. */
export const JOB_COMMANDS = { 'job import-legacy': importLegacy } satisfies Record<string, AdminCommand>;
