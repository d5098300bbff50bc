import { type Server, createServer } from 'node:http';

/**
 * A stand-in for an OpenAI-compatible speech server (`POST /v1/audio/speech`, raw 16-bit PCM at
 * 24 kHz), for running a deployment whose upstream engine is configured: `ok` answers a tone after
 * `msPerChar` per character of input (so long texts outlast an inline wait), `fail` always answers
 * 500, which the deployment must report as TTS_PROVIDER_ERROR.
 */
export async function startFakeSpeechServer(behaviour: 'ok' | 'fail', options: { msPerChar?: number; audioMsPerChar?: number } = {}) {
  const msPerChar = options.msPerChar ?? 0;
  const audioMsPerChar = options.audioMsPerChar ?? 10;
  let requests = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/audio/speech') {
        res.writeHead(404).end();
        return;
      }
      requests++;
      if (behaviour === 'fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"the model is unavailable"}');
        return;
      }
      const { input, speed } = JSON.parse(body) as { input: string; speed?: number };
      const samples = Math.max(240, Math.round((24_000 * (audioMsPerChar / 1000) * input.length) / (speed ?? 1)));
      const pcm = Buffer.alloc(samples * 2);
      for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 220 * i) / 24_000) * 12_000), i * 2);
      setTimeout(() => res.writeHead(200, { 'content-type': 'audio/pcm' }).end(pcm), msPerChar * input.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
