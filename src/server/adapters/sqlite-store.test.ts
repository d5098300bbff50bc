import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from './sqlite-store.js';
import { describeStoreContract } from './store.contract.js';

describeStoreContract('SqliteStore', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agent-tts-store-'));
  const store = new SqliteStore(join(dir, 'store.sqlite'));
  return {
    store,
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
