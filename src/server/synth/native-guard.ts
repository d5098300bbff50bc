/**
 * Keeps a pool thread from being terminated while it is inside native code.
 *
 * Terminating a worker thread while it runs the native engine (koffi calling into libespeak-ng, which
 * calls back into JavaScript, or LAME, or koffi loading a library) aborts the whole process: koffi
 * throws into an environment that is being torn down (Node's "FATAL ERROR: Error::ThrowAsJavaScriptException
 * napi_throw"). So the pool and its threads share two counters: a thread counts itself in before native
 * work and out after, and refuses to start native work once the pool is closing; the pool, when it closes,
 * first says so, then waits until no thread is inside native code, and only then terminates them. The
 * order (count in, then look at the flag; set the flag, then look at the count) and sequentially
 * consistent Atomics mean that a thread either sees the flag or is seen by the pool.
 *
 * Terminating a thread while it is still loading its module aborts the process too, on Node 20 (V8's
 * "Module::IsGraphAsync must be used on an instantiated module", in require() of an ES module): each
 * thread also counts itself loaded, and the pool waits for all of them before it terminates any.
 */

const CLOSING = 0;
const INSIDE = 1;
const LOADED = 2;

/** The memory a pool shares with its threads (passed in their workerData). */
export function nativeGuardMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
}

/** Thrown in a thread asked to start native work while its pool is closing. */
export class PoolClosingError extends Error {
  constructor() {
    super('the synthesis pool is closing');
    this.name = 'PoolClosingError';
  }
}

/**
 * A thread's side: runs `work` counted as inside native code until it returns (or, when it returns a
 * promise, until that settles), or throws PoolClosingError when the pool is closing.
 */
export function insideNative<T>(memory: SharedArrayBuffer | undefined, work: () => T): T {
  if (!memory) return work();
  const counters = new Int32Array(memory);
  Atomics.add(counters, INSIDE, 1);
  let settlesLater = false;
  try {
    if (Atomics.load(counters, CLOSING) !== 0) throw new PoolClosingError();
    const result = work();
    if (result instanceof Promise) {
      settlesLater = true;
      return result.finally(() => Atomics.sub(counters, INSIDE, 1)) as T;
    }
    return result;
  } finally {
    if (!settlesLater) Atomics.sub(counters, INSIDE, 1);
  }
}

/** A thread's side: called once its module has loaded. */
export function threadLoaded(memory: SharedArrayBuffer | undefined): void {
  if (memory) Atomics.add(new Int32Array(memory), LOADED, 1);
}

/** True once the pool is closing: native work in progress may stop early (its result is not wanted). */
export function poolClosing(memory: SharedArrayBuffer | undefined): boolean {
  return memory !== undefined && Atomics.load(new Int32Array(memory), CLOSING) !== 0;
}

/**
 * The pool's side: marks the pool closing and resolves once its `threads` threads have loaded and none is
 * inside native code (checked every few milliseconds; a synthesis that sees the flag stops at its next
 * block of audio), true; or false after `limitMs` at the latest.
 */
export async function closeNative(memory: SharedArrayBuffer, threads: number, limitMs = 30_000): Promise<boolean> {
  const counters = new Int32Array(memory);
  Atomics.store(counters, CLOSING, 1);
  const giveUp = Date.now() + limitMs;
  while (Atomics.load(counters, LOADED) < threads || Atomics.load(counters, INSIDE) !== 0) {
    if (Date.now() >= giveUp) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}
