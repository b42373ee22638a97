export interface RateSample {
  operations: number;
  seconds: number;
}

/** Runs `operation` from `clients` concurrent loops for `durationMs`; counts what finished. */
export async function sampleRate(
  operation: (client: number, sequence: number) => Promise<unknown>,
  options: { durationMs: number; clients: number; startAt: number },
): Promise<RateSample & { next: number }> {
  let sequence = options.startAt;
  let operations = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const loop = async (client: number) => {
    while (performance.now() < deadline) {
      await operation(client, sequence++);
      operations++;
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, client) => loop(client)));
  return { operations, seconds: (performance.now() - started) / 1000, next: sequence };
}

export const perSecond = (sample: RateSample) => sample.operations / sample.seconds;
