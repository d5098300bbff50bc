/**
 * Where the inline POST's milliseconds go, on each engine at the same time: a server and a direct
 * pipeline per engine (native, wasm), measured in alternating rounds (native, wasm, wasm, native, …),
 * each round one request at a time in ABBA order (bench/benchmarks/inline.ts). Per engine: the
 * pipeline's p50, the HTTP POST's p50, the server's processing_time_ms p50 (job created to completed)
 * and the added milliseconds, HTTP over the pipeline. A cost of the server that does not depend on the
 * engine adds the same milliseconds to both, and lowers the faster engine's ratio the more.
 *
 *   npm run build && node bench/dist/probes/inline-sides.js [rounds] [pairs per round]
 */
import { availableParallelism, loadavg } from 'node:os';
import { preparePaths, measureLatency, warmUp } from '../benchmarks/inline.js';
import { RAISED_LIMITS } from '../benchmarks/poll-sides.js';
import { AgentServer } from '../harness/agent-server.js';
import { DirectPipeline } from '../harness/direct-pipeline.js';
import { summarizeLatency } from '../harness/stats.js';

const rounds = Number(process.argv[2] ?? 4);
const pairs = Number(process.argv[3] ?? 20);
const threads = availableParallelism();
const log = (m: string) => process.stdout.write(`${m}\n`);
const ctx = { quick: true, synthThreads: threads, redisUrl: '', log };
const engines = ['native', 'wasm'] as const;
const stops: (() => Promise<unknown>)[] = [];
const load = () => loadavg().map((x) => Math.round(x * 100) / 100);

try {
  log(`load at start ${load().join(' / ')}`);
  const sides = [];
  for (const engine of engines) {
    const server = await AgentServer.start({ label: `probe-inline-${engine}`, env: { ...RAISED_LIMITS, SYNTH_ENGINE: engine }, synthThreads: threads });
    stops.push(() => server.stop());
    process.env.SYNTH_ENGINE = engine;
    const direct = await DirectPipeline.create(threads);
    stops.push(() => direct.close());
    const paths = await preparePaths(server, direct, 8);
    await warmUp(ctx, paths, { warmup: 3 });
    sides.push({ engine, paths, direct: [] as number[], http: [] as number[], processing: [] as number[] });
  }
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      log(`round ${r + 1}, ${side.engine}:`);
      const latency = await measureLatency(ctx, side.paths, { latency_pairs: pairs });
      side.direct.push(latency.direct.p50_ms);
      side.http.push(latency.http.p50_ms);
      side.processing.push(latency.processing.p50_ms);
    }
  }
  log(`load at end ${load().join(' / ')}`);
  for (const side of sides) {
    const p50 = (xs: number[]) => summarizeLatency(xs).p50_ms;
    const added = side.http.map((h, i) => Math.round((h - side.direct[i]!) * 100) / 100);
    log(
      `${side.engine.padEnd(6)} median of round p50s: pipeline ${p50(side.direct)} ms, HTTP ${p50(side.http)} ms, server processing ${p50(side.processing)} ms;` +
        ` added per round ${added.join(', ')} ms; ratio ${(p50(side.direct) / p50(side.http)).toFixed(3)}`,
    );
  }
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}
