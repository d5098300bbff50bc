import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstantSynthesizer } from '../../src/sandbox/synthesizer.js';
import { LocalBlobStorage } from '../../src/server/adapters/local-blob-storage.js';
import { MemoryStore } from '../../src/server/adapters/memory-store.js';
import { JobFiles } from '../../src/server/domain/job-files.js';
import { createApi } from '../../src/server/create-api.js';
import { createOpsApp, opsDepsOf, serverHosts } from '../../src/server/http/apps.js';
import { createLogger } from '../../src/server/log.js';
import { type InProcessServer, inProcessHandle } from './in-process.js';

/**
 * The server's services and apps for domain and HTTP tests that do not need real speech: createApi
 * over the memory store (MemoryStore, nothing on disk) and the sandbox's instant synthesizer (silent
 * MP3 frames, no worker pool, no eSpeak), audio in a fresh directory. The same shape as startInProcess (in-process.ts), which keeps
 * real synthesis for the tests whose point is real audio.
 */
export async function createTestServices(env: Record<string, string> = {}): Promise<InProcessServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'agent-tts-services-'));
  const store = new MemoryStore();
  const log = createLogger('silent');
  const api = await createApi({
    // A generous inline wait: these tests are about what is answered, not how fast (the machine may be busy).
    env: { DATA_DIR: dataDir, LOG_LEVEL: 'silent', INLINE_WAIT_MS: '60000', ...env },
    log,
    synth: new InstantSynthesizer(60, 1),
    storage: { store, audio: new JobFiles(new LocalBlobStorage(join(dataDir, 'audio'))), close: () => store.close() },
  });
  const { app, voicesApp, services, config } = api;
  const opsApp = createOpsApp(opsDepsOf(services, log), serverHosts(config));
  return inProcessHandle({ services, config, app, voicesApp, opsApp, log, dataDir }, 'test-services', async () => {
    await api.close();
    await rm(dataDir, { recursive: true, force: true });
  });
}
