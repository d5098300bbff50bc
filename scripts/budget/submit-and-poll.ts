/**
 * The client budget's program (scripts/pack-smoke.sh): what a web app or script does with
 * `@agent-tts/client` — submit a text, poll the job as the service tells it to, fetch the audio.
 * The smoke test bundles it for the browser with esbuild (the gzipped size is the budget) and runs
 * it under Node against a server installed from the tarballs, both against the client installed
 * from its own tarball in an empty directory. It uses no Node built-ins, so the bundle is what a
 * browser would load.
 */
import { AgentTtsClient } from '@agent-tts/client';

export interface SubmitAndPollResult {
  jobId: string;
  /** 200 when the service answered at once, 202 when the job was polled until it completed. */
  submitStatus: 200 | 202;
  audioBytes: number;
  contentType: string | null;
}

export async function submitAndPoll(baseUrl: string, apiKey: string, text: string): Promise<SubmitAndPollResult> {
  const client = new AgentTtsClient({ baseUrl, apiKey });
  const { job } = await client.submit({ text });
  // A processing job carries retry_after_seconds: poll() waits that long between polls.
  const completed = job.status === 'completed' ? job : await client.poll(job.job_id);
  const audio = await client.openAudio(completed);
  let audioBytes = 0;
  const reader = audio.body.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) audioBytes += chunk.value.byteLength;
  return { jobId: completed.job_id, submitStatus: job.status === 'completed' ? 200 : 202, audioBytes, contentType: audio.contentType };
}
