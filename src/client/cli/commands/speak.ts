import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { downloadToFile, downloadToStream } from '../../node.js';
import type { CompletedJob } from '../../types.js';
import { commandConfig, numberOption, positiveIntOption, usageOnError } from '../args.js';
import { adviseOnUrl, clientOf, progressOf, requireKey, settingsOf, useSandboxClock, type CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { readSpeechText } from '../input.js';
import { renameOldFlags } from '../../../contract/flag-names.js';
import { checkOutputPath, saveAudio, describeJob } from './audio-output.js';
import { describeSaved, timingsTargets, writeTimings } from './captions-output.js';
import { streamSpeech } from './speak-stream.js';

const OPTIONS = {
  out: { type: 'string', short: 'o' },
  file: { type: 'string', short: 'f' },
  voice: { type: 'string', short: 'v' },
  speed: { type: 'string', short: 's' },
  language: { type: 'string', short: 'l' },
  'no-download': { type: 'boolean' },
  timeout: { type: 'string' },
  'idempotency-key': { type: 'string' },
  'max-attempts': { type: 'string' },
  'sandbox-clock': { type: 'boolean' },
  captions: { type: 'string' },
  timings: { type: 'string' },
  stream: { type: 'string' },
} as const;

export async function speakCommand(ctx: CliContext, args: string[]): Promise<ExitCode> {
  const argv = renameOldFlags(args, { output: 'out' }, (line) => ctx.output.err(`agent-tts: ${line}`));
  const { values, positionals } = usageOnError('speak', () => parseArgs(commandConfig(argv, OPTIONS)));
  if (positionals.length > 1) {
    throw usageError(`Expected one text argument, got ${positionals.length} (quote the text)`, 'speak');
  }
  const speed = numberOption(values.speed, '--speed', 'speak');
  const timeoutSeconds = numberOption(values.timeout, '--timeout', 'speak');
  if (timeoutSeconds !== undefined && timeoutSeconds <= 0) throw usageError('--timeout must be more than 0 seconds', 'speak');
  const maxAttempts = positiveIntOption(values['max-attempts'], '--max-attempts', 'speak');
  const { out: output, stream: streamTo } = values;
  await checkTargets(ctx, values);
  const timingFiles = await timingsTargets(values, output);

  const { text } = await readSpeechText({ text: positionals[0], file: values.file }, ctx.stdin);
  const settings = await settingsOf(ctx);
  requireKey(settings);
  if (values['sandbox-clock']) await useSandboxClock(ctx, settings);
  const progress = progressOf(ctx);
  const client = clientOf(ctx, settings, progress, maxAttempts);
  if (streamTo !== undefined) {
    progress.stop();
    const streaming = { target: streamTo, idempotencyKey: values['idempotency-key'], timeoutMs: timeoutSeconds && timeoutSeconds * 1000 };
    return streamSpeech(ctx, client, { text, voice: values.voice, speed, language: values.language }, streaming).catch((error: unknown) =>
      adviseOnUrl(error, settings.baseUrl, '--base-url', 'base_url'),
    );
  }

  let job: CompletedJob;
  try {
    job = await client
      .speak(
        { text, voice: values.voice, speed, language: values.language, ...(timingFiles.length > 0 ? { timestamps: 'word' as const } : {}) },
        {
          signal: ctx.signal,
          idempotencyKey: values['idempotency-key'],
          timeoutMs: timeoutSeconds !== undefined ? timeoutSeconds * 1000 : undefined,
          onProgress: (event) => {
            ctx.jobId = event.jobId;
            progress.update(event);
          },
        },
      )
      .catch((error: unknown) => adviseOnUrl(error, settings.baseUrl, '--base-url', 'base_url'));
  } finally {
    progress.stop();
  }
  ctx.jobId = job.job_id;
  if (values.voice !== undefined && job.audio.voice !== values.voice) {
    ctx.output.err(
      `agent-tts: warning: the audio was spoken by ${job.audio.voice}, not ${values.voice}: the deployment's voice catalog does not list ${values.voice}, so it used the closest listed voice of the same language and gender (run \`agent-tts voices\` to choose a listed one).`,
    );
  }

  if (values['no-download']) {
    if (ctx.output.json) ctx.output.emitJson({ ok: true, job });
    else {
      ctx.output.out(job.audio_url);
      ctx.output.err(describeJob(job));
    }
    return EXIT.OK;
  }
  const path = output ?? `${job.job_id}.mp3`;
  ctx.hint = `The job is complete: download its audio later with \`agent-tts status ${job.job_id} -o ${path}\`.`;
  const saved = await saveAudio(path, () =>
    path === '-' ? downloadToStream(client, job, ctx.output.streams.stdout, { signal: ctx.signal }) : downloadToFile(client, job, path, { signal: ctx.signal }),
  );
  if (timingFiles.length > 0) ctx.hint = `The audio was saved to ${saved.path === '-' ? 'stdout' : saved.path}.`;
  const files = await writeTimings(client, job, timingFiles, ctx.signal);
  if (ctx.output.json) {
    ctx.output.emitJson({ ok: true, job, file: saved, ...(files.length > 0 ? { timing_files: files } : {}) });
  } else {
    // With the audio on stdout, the summary goes to stderr so it does not corrupt the MP3.
    const line = `Saved ${saved.path === '-' ? 'audio to stdout' : saved.path} (${saved.bytes} bytes). ${describeJob(job)}`;
    const say = (text: string) => (saved.path === '-' ? ctx.output.err(text) : ctx.output.out(text));
    say(line);
    for (const file of files) say(describeSaved(file));
  }
  return EXIT.OK;
}

/** Where the audio goes, checked before anything is sent: a path that cannot be written would fail only after the job was made and charged. */
async function checkTargets(
  ctx: CliContext,
  values: { out?: string; stream?: string; 'no-download'?: boolean; captions?: string; timings?: string },
): Promise<void> {
  const output = values.out;
  if (values.stream !== undefined) return checkStreamTarget(ctx, values.stream, values);
  if (output === '-' && ctx.output.json) throw usageError('-o - (audio on stdout) cannot be combined with --json', 'speak');
  if (output === '-' && ctx.output.streams.stdout.isTTY) {
    throw usageError('Refusing to write MP3 data to a terminal: redirect stdout or give -o <file>', 'speak');
  }
  if (values['no-download'] && output !== undefined) throw usageError('--no-download and -o cannot be combined', 'speak');
  if (!values['no-download']) await checkOutputPath(output ?? join(process.cwd(), '<job_id>.mp3'));
}

/** `--stream` writes the audio itself: not with -o, --no-download or caption files; `-` (stdout) not to a terminal nor with --json. */
function checkStreamTarget(ctx: CliContext, target: string, values: { out?: string; 'no-download'?: boolean; captions?: string; timings?: string }): void {
  if (values.out !== undefined || values['no-download'] || values.captions !== undefined || values.timings !== undefined) {
    throw usageError('--stream cannot be combined with -o, --no-download, --captions or --timings', 'speak');
  }
  if (target === '-' && ctx.output.json) throw usageError('--stream - (audio on stdout) cannot be combined with --json', 'speak');
  if (target === '-' && ctx.output.streams.stdout.isTTY) {
    throw usageError(
      'Refusing to write MP3 data to a terminal: pipe stdout into a player (agent-tts speak --stream - "…" | mpv -) or give --stream <file>',
      'speak',
    );
  }
}
