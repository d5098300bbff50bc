import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileSpool, SPOOL_STALE_MS } from './file-spool.js';

describe('FileSpool', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-tts-spool-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps what is written in a file of its own per run, and removes it when discarded', async () => {
    const spool = new FileSpool(join(dir, 'spool'));
    const job = randomUUID();
    const [a, b] = [await spool.create(job), await spool.create(job)];
    expect(a.path).not.toBe(b.path);
    await a.write(Buffer.from('ID3'));
    await a.write(new Uint8Array(100_000).fill(7));
    await a.close();
    const kept = await readFile(a.path);
    expect(kept.byteLength).toBe(100_003);
    expect(kept.subarray(0, 3).toString()).toBe('ID3');
    await a.discard();
    await a.discard();
    await b.discard();
    expect(await readdir(join(dir, 'spool'))).toEqual([]);
  });

  it('sweeps the files of dead processes (untouched for a day), not those of live runs', async () => {
    const spool = new FileSpool(join(dir, 'sweep'));
    const live = await spool.create(randomUUID());
    const dead = await spool.create(randomUUID());
    await dead.close();
    const old = new Date(Date.now() - SPOOL_STALE_MS - 60_000);
    await utimes(dead.path, old, old);
    expect(await spool.sweep()).toBe(1);
    expect(await readdir(join(dir, 'sweep'))).toEqual([live.path.slice(join(dir, 'sweep').length + 1)]);
    await live.discard();
    expect(await new FileSpool(join(dir, 'never-made')).sweep()).toBe(0);
  });
});
