import { createConsoleTrace, type Outcome, type RecoveryEvent } from '@recourse/core';

export type Log = (line: string) => void;
export type Observer = (event: RecoveryEvent) => void;

export interface TraceOptions {
  /** Also print the guidance sentence of every failure contract the model receives. */
  guidance?: boolean | undefined;
}

/** The core's console trace, printed through `log`, with an observer for the examples' tests. */
export function createTrace(
  log: Log = console.log,
  observe?: Observer,
  options: TraceOptions = {},
) {
  const trace = createConsoleTrace({ write: log });
  return {
    onEvent: (event: RecoveryEvent) => {
      observe?.(event);
      trace(event);
      if (
        options.guidance &&
        event.type === 'call.failed' &&
        event.contract.code !== 'RUN_STOPPED'
      ) {
        log(`    guidance: ${event.contract.guidance}`);
      }
    },
    printOutcome: (outcome: Outcome) => trace.outcome(outcome),
  };
}
