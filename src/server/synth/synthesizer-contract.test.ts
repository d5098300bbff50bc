import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';
import { describeSynthesizerContract } from './synthesizer.contract.js';
import { createSynthesizer } from './index.js';
import { findNativeLibraries } from './native.js';

// The engines of this package: the WebAssembly eSpeak NG always, the native one where its libraries
// are installed (under CI=true their absence fails, as in native.test.ts), and the OpenAI-compatible
// engine against a local speech server. The sandbox runs the same suite against its instant
// synthesizer (test/sandbox-synthesizer-contract.test.ts).
describeSynthesizerContract('eSpeak NG (WebAssembly)', () => createSynthesizer({ threads: 1, espeakBuild: 'wasm' }));
if ('espeak' in findNativeLibraries() || process.env.CI === 'true') {
  describeSynthesizerContract('eSpeak NG (native)', () => createSynthesizer({ threads: 1, espeakBuild: 'native' }));
}

/** A speech server of the OpenAI API's shape: raw 24 kHz PCM, 60 ms of a 220 Hz tone per character of the input, at speed 1. */
let upstream: Server | undefined;
async function startUpstream(): Promise<string> {
  upstream = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string; speed: number };
    const samples = Math.round(((body.input.length * 0.06) / body.speed) * 24_000);
    const pcm = Buffer.alloc(samples * 2);
    for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(10_000 * Math.sin((2 * Math.PI * 220 * i) / 24_000)), i * 2);
    res.writeHead(200, { 'content-type': 'audio/pcm' });
    res.end(pcm);
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
}
afterAll(() => {
  upstream?.closeAllConnections();
  upstream?.close();
});
describeSynthesizerContract('OpenAI-compatible (upstream)', async () =>
  createSynthesizer({
    engine: 'openai-compatible',
    threads: 1,
    upstream: { baseUrls: { kokoro: await startUpstream() }, apiKey: 'sk-contract-test', retries: 0 },
  }),
);
