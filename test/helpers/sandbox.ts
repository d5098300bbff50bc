import { AgentTtsClient } from '../../src/client/client.js';
import { startSandbox, type RunningSandbox, type StartSandboxOptions } from '../../src/sandbox/index.js';

/**
 * A sandbox whose clock is frozen, warmed up with one asynchronous job (on the `minutes_almost_used`
 * key, which the timing tests leave alone) polled on the sandbox clock, so that the timings a test
 * measures afterwards are not those of the process's warm-up.
 */
export async function startWarmSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const sandbox = await startSandbox(options);
  await sandbox.clock.freeze();
  const warmUp = new AgentTtsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.minutes_almost_used, clock: sandbox.clock.client });
  await warmUp.speak({ text: 'Warm-up. sandbox:async=1' });
  return sandbox;
}
