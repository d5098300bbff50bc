import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InProcessServer } from '../../../test/helpers/in-process.js';
import { createTestServices } from '../../../test/helpers/test-services.js';
import { newJob } from '../adapters/contracts/fixtures.contract.js';
import { createLogger } from '../log.js';
import { sweepExpiredJobs, sweepLeftovers } from './retention.js';

const log = createLogger('silent');
const NOW = Date.UTC(2026, 3, 20, 12);

/** The retention sweeps over the real SQLite store and local audio directory. */
describe('retention', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await createTestServices();
  });
  afterAll(async () => {
    await server?.close();
  });
  const store = () => server.services.store;
  const audio = () => server.services.audio;

  async function jobWithAudio(accountId: string, deleteAfter: number, finished: boolean) {
    const job = newJob(accountId, { deleteAfter });
    await store().createJob(job, 1_000_000);
    const writer = await audio().createWriter(job.id);
    await writer.write(new Uint8Array([1, 2, 3]));
    if (finished) await writer.commit();
    return job;
  }

  it('deletes the records and audio of jobs whose retention has passed, and their partial writes', async () => {
    const { accountId } = await server.newKey();
    const expired = [await jobWithAudio(accountId, NOW - 1, true), await jobWithAudio(accountId, NOW, true)];
    // A run that died before its job expired: its partial write goes with the job.
    const deadRun = await jobWithAudio(accountId, NOW - 1, false);
    const kept = await jobWithAudio(accountId, NOW + 1, true);
    expect(await audio().listLeftovers(0)).toContain(deadRun.id);

    expect(await sweepExpiredJobs(store(), audio(), log, NOW)).toBe(3);
    for (const job of [...expired, deadRun]) {
      expect(await store().getJob(job.id)).toBeUndefined();
      expect(await audio().stat(job.id)).toBeUndefined();
    }
    expect(await audio().listLeftovers(0)).not.toContain(deadRun.id);
    expect((await store().getJob(kept.id))?.id).toBe(kept.id);
    expect(await audio().stat(kept.id)).toEqual({ size: 3 });
    expect(await sweepExpiredJobs(store(), audio(), log, NOW)).toBe(0);
  });

  it('removes partial writes untouched for the stale age, and none younger', async () => {
    const { accountId } = await server.newKey();
    const dead = await jobWithAudio(accountId, NOW + 86_400_000, false);
    expect(await sweepLeftovers(audio(), log, 3_600_000)).toBe(0);
    expect(await audio().listLeftovers(0)).toContain(dead.id);
    expect(await sweepLeftovers(audio(), log, 0)).toBeGreaterThanOrEqual(1);
    expect(await audio().listLeftovers(0)).toEqual([]);
    // The job itself is not the sweep's business.
    expect((await store().getJob(dead.id))?.id).toBe(dead.id);
  });
});
