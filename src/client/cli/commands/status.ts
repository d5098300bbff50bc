import { parseArgs } from 'node:util';
import { downloadToFile, downloadToStream, type SaveResult } from '../../node.js';
import { jobError } from '../../poll.js';
import type { JobStatus } from '../../types.js';
import { commandConfig, numberOption, usageOnError } from '../args.js';
import { clientOf, progressOf, requireKey, settingsOf, useSandboxClock, type CliContext } from '../context.js';
import { describeFailure, usageError } from '../errors.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { formatSeconds } from '../progress.js';
import { renameOldFlags } from '../../../contract/flag-names.js';
import { checkOutputPath, describeJob, saveAudio } from './audio-output.js';

const OPTIONS = {
  wait: { type: 'boolean' },
  out: { type: 'string', short: 'o' },
  timeout: { type: 'string' },
  'sandbox-clock': { type: 'boolean' },
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function statusCommand(ctx: CliContext, args: string[]): Promise<ExitCode> {
  const argv = renameOldFlags(args, { output: 'out' }, (line) => ctx.output.err(`agent-tts: ${line}`));
  const { values, positionals } = usageOnError('status', () => parseArgs(commandConfig(argv, OPTIONS)));
  const [jobId] = positionals;
  if (positionals.length !== 1 || jobId === undefined) throw usageError('Expected one job id', 'status');
  if (!UUID.test(jobId)) throw usageError(`"${jobId}" is not a job id (a UUID such as 3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f)`, 'status');
  const timeoutSeconds = numberOption(values.timeout, '--timeout', 'status');
  if (values.out === '-' && ctx.output.json) throw usageError('-o - (audio on stdout) cannot be combined with --json', 'status');
  ctx.jobId = jobId;
  if (values.out !== undefined) await checkOutputPath(values.out);

  const settings = await settingsOf(ctx);
  requireKey(settings);
  if (values['sandbox-clock']) await useSandboxClock(ctx, settings);
  const progress = progressOf(ctx);
  const client = clientOf(ctx, settings, progress);

  let job: JobStatus = await client.getJob(jobId, { signal: ctx.signal });
  if (values.wait && job.status === 'processing') {
    const startedAt = ctx.clock.now();
    try {
      job = await client.poll(jobId, {
        signal: ctx.signal,
        onProgress: progress.update,
        startedAt,
        firstReport: job,
        initialDelayMs: job.retry_after_seconds * 1000,
        timeoutMs: timeoutSeconds !== undefined ? timeoutSeconds * 1000 : undefined,
      });
    } finally {
      progress.stop();
    }
  }

  if (job.status === 'failed' || job.status === 'expired') {
    const failure = describeFailure(jobError(job));
    if (ctx.output.json) ctx.output.emitJson({ ok: false, exit_code: failure.exitCode, error: failure.json, job });
    else for (const line of [`Job ${job.job_id}: ${job.status}`, ...failure.lines]) ctx.output.err(line);
    return failure.exitCode;
  }

  let saved: SaveResult | undefined;
  if (values.out !== undefined && job.status === 'completed') {
    const done = job;
    const path = values.out;
    saved = await saveAudio(path, () =>
      path === '-'
        ? downloadToStream(client, done, ctx.output.streams.stdout, { signal: ctx.signal })
        : downloadToFile(client, done, path, { signal: ctx.signal }),
    );
  }

  if (ctx.output.json) {
    ctx.output.emitJson({ ok: true, job, ...(saved ? { file: saved } : {}) });
    return EXIT.OK;
  }
  const print = values.out === '-' ? (line: string) => ctx.output.err(line) : (line: string) => ctx.output.out(line);
  if (job.status === 'completed') {
    print(`Job ${job.job_id}: completed`);
    print(`Audio URL (temporary): ${job.audio_url}`);
    print(describeJob(job));
    if (saved) print(`Saved ${saved.path === '-' ? 'audio to stdout' : saved.path} (${saved.bytes} bytes).`);
  } else {
    const percent = job.progress_percent !== undefined ? ` ${Math.round(job.progress_percent)}%` : '';
    print(`Job ${job.job_id}: processing${percent}; check again in ${formatSeconds(job.retry_after_seconds * 1000)}, or use --wait.`);
  }
  return EXIT.OK;
}
