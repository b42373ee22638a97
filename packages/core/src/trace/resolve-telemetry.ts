import type { Telemetry } from '../runtime/telemetry.js';

/** The run's tracing: spans through OpenTelemetry when it is installed and recording. */
export function resolveTelemetry(_tracer: unknown): Telemetry | undefined {
  return undefined;
}
