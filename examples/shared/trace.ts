import { createConsoleTrace, type Outcome, type RecoveryEvent } from '@recourse/core';

export type Log = (line: string) => void;
export type Observer = (event: RecoveryEvent) => void;

/** The core's console trace, printed through `log`, with an observer for the examples' tests. */
export function createTrace(log: Log = console.log, observe?: Observer) {
  const trace = createConsoleTrace({ write: log });
  return {
    onEvent: (event: RecoveryEvent) => {
      observe?.(event);
      trace(event);
    },
    printOutcome: (outcome: Outcome) => trace.outcome(outcome),
  };
}
