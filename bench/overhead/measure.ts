import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Nanoseconds per call of an async function, over `iterations` sequential awaited calls. */
export async function nsPerAsyncCall(
  call: (i: number) => unknown,
  iterations: number,
): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await call(i);
  return Number(process.hrtime.bigint() - start) / iterations;
}

let sink: unknown;

/** Nanoseconds per call of a synchronous function; results go to a sink so they stay live. */
export function nsPerSyncCall(call: (i: number) => unknown, iterations: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) sink = call(i);
  return Number(process.hrtime.bigint() - start) / iterations;
}

/** Keeps the sink observable, so the engine cannot drop the measured calls. */
export function readSink(): unknown {
  return sink;
}

// `node --expose-gc` gives `globalThis.gc`; otherwise switch the flag on and fetch it.
const exposed = (globalThis as { gc?: () => void }).gc;
if (!exposed) setFlagsFromString('--expose-gc');
const collect: () => void = exposed ?? (runInNewContext('gc') as () => void);

let collections = 0;
const observer = new PerformanceObserver((list) => {
  collections += list.getEntries().length;
});
observer.observe({ entryTypes: ['gc'] });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Bytes of V8 heap allocated per call: the heap growth over a batch that started right
 * after a full collection. Batches during which any collection ran are discarded (the
 * growth would undercount); the median of the clean ones is returned.
 */
export async function bytesPerCall(
  call: (i: number) => unknown,
  batch = 400,
  tries = 15,
): Promise<number | undefined> {
  const samples: number[] = [];
  for (let t = 0; t < tries; t++) {
    collect();
    await turn();
    await turn(); // the forced collection's own entry arrives asynchronously
    const seen = collections;
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < batch; i++) {
      const result = call(t * batch + i);
      if (result instanceof Promise) await result;
    }
    const after = process.memoryUsage().heapUsed;
    await turn();
    if (collections === seen) samples.push((after - before) / batch);
  }
  if (samples.length === 0) return undefined;
  samples.sort((a, b) => a - b);
  return Math.round(samples[Math.floor(samples.length / 2)]!);
}

/**
 * Bytes per call still reachable after a full collection: the heap after `calls` calls
 * on one caller (kept alive, so what it holds counts) minus the heap before them, both
 * right after a forced GC. A warm-up first, so lazily built state and compiled code are
 * not charged to the calls. Median of `tries`; a negative figure is noise around zero.
 */
export async function retainedBytesPerCall(
  prepare: () => (i: number) => unknown,
  calls = 10_000,
  tries = 3,
): Promise<number> {
  const samples: number[] = [];
  for (let t = 0; t < tries; t++) {
    const call = prepare();
    for (let i = 0; i < 500; i++) {
      const result = call(-1 - i);
      if (result instanceof Promise) await result;
    }
    collect();
    collect();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < calls; i++) {
      const result = call(i);
      if (result instanceof Promise) await result;
    }
    collect();
    collect();
    const after = process.memoryUsage().heapUsed;
    sink = call; // the caller (and its ledger) stays reachable through the measurement
    samples.push((after - before) / calls);
  }
  return Math.round(median(samples));
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
