import { createRequire } from 'node:module';
import type { Telemetry } from '../runtime/telemetry.js';
import { createOtelTelemetry, type OtelApi, type TracerLike } from './otel-telemetry.js';

let api: OtelApi | null | undefined;

/**
 * `@opentelemetry/api` when the application has it (an optional peer: the application's
 * own copy, the one its SDK registered with), loaded on first use; null without it.
 */
function loadOtelApi(): OtelApi | null {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
    } catch {
      api = null;
    }
  }
  return api;
}

/** The run's tracing: spans through OpenTelemetry when it is installed, else none. */
export function resolveTelemetry(tracer: unknown): Telemetry | undefined {
  if (tracer === false) return undefined;
  const otel = loadOtelApi();
  return otel ? createOtelTelemetry(otel, tracer as TracerLike | undefined) : undefined;
}
