// Closing the synthesis pool while its threads are busy must never abort the process. Terminating a
// worker thread inside the native engine (koffi calling eSpeak NG, which calls back into JavaScript)
// aborted Node with "FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw", and terminating one still
// loading its module with "Module::IsGraphAsync must be used on an instantiated module" (native-guard.ts).
// Each case runs in a child process of its own, since what it guards against kills the process.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findNativeLibraries } from './native.js';

const dist = fileURLToPath(new URL('../dist/synth/', import.meta.url));
const native = findNativeLibraries();
const haveNative = 'espeak' in native || process.env.CI === 'true';

/**
 * Opens a pool, starts two long syntheses (with word events: more time in the engine's callbacks into
 * JavaScript, where a termination aborted the process most often), and closes it after `from` to
 * `from` + 450 ms, `rounds` times.
 */
function closeWhileBusy(engine: 'native' | 'wasm', rounds: number, from: number) {
  const script = `
    import { SynthesisPool } from ${JSON.stringify(`${dist}pool.js`)};
    import { findNativeLibraries } from ${JSON.stringify(`${dist}native.js`)};
    const native = ${engine === 'native'} ? findNativeLibraries() : undefined;
    if (native && !('espeak' in native)) throw new Error(native.missing);
    const text = 'A long sentence that goes on about many things, so that synthesis is still running. '.repeat(150);
    const settings = { name: 'en-us', pitch: 50, range: 50, rate: 175 };
    for (let round = 0; round < ${rounds}; round++) {
      const pool = new SynthesisPool({ threads: 2, warmEspeak: false, ...(native && { native }) });
      const tasks = [pool.synthesize({ text, settings, wordEvents: true }), pool.synthesize({ text, settings, wordEvents: true })].map((task) => task.catch(() => undefined));
      await new Promise((resolve) => setTimeout(resolve, ${from} + (round % 10) * 50));
      await pool.destroy();
      await Promise.all(tasks);
    }
    console.log('closed ${rounds} pools');
  `;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 170_000 });
}

describe('closing the synthesis pool while it works', () => {
  it.skipIf(!haveNative)(
    'never aborts the process with the native engine, whenever it happens',
    () => {
      const child = closeWhileBusy('native', 30, 200);
      expect(child.stderr).not.toContain('FATAL ERROR');
      expect({ status: child.status, signal: child.signal, stdout: child.stdout.trim() }).toEqual({ status: 0, signal: null, stdout: 'closed 30 pools' });
    },
    180_000,
  );

  it('never aborts the process with the WebAssembly engine, even while threads are still loading', () => {
    const child = closeWhileBusy('wasm', 10, 0);
    expect(child.stderr).not.toContain('FATAL ERROR');
    expect({ status: child.status, signal: child.signal, stdout: child.stdout.trim() }).toEqual({ status: 0, signal: null, stdout: 'closed 10 pools' });
  }, 180_000);
});
