import { createClassifier } from '../classify/index.js';
import { redactSecrets } from '../classify/redact.js';
import { type Clock, systemClock, systemRandom } from '../clock.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import { validateBackoff } from '../policy/backoff.js';
import { defaultRepairBudget } from '../policy/decide-recovery.js';
import {
  createRetryBudget,
  type RetryBudget,
  type RetryBudgetOptions,
} from '../policy/retry-budget.js';
import { resolveTelemetry } from '../trace/resolve-telemetry.js';
import type { RunParts } from './call/call.js';
import { leaseRenewerFor } from './call/lease-renewer.js';
import { createLedgerDeadline, defaultLedgerTimeoutMs } from './ledger-deadline.js';
import {
  type RecoveryOptions,
  type RetryOptions,
  retryDefaults,
} from './options/recovery-options.js';
import { createEmitter } from './run/emitter.js';
import { createRunMemory } from './run/run-memory.js';

/** The parts every call of the run shares, from validated options, defaults filled in. */
export function createRunParts(options: RecoveryOptions): RunParts {
  const clock = options.clock ?? systemClock;
  // The default ledger keeps the run's time, so leases and retention follow an injected clock.
  const ledger = options.ledger ?? new MemoryLedger({ clock });
  const emitter = createEmitter(options.onEvent);
  // A store that cannot be reached is said once, when it happens, with where and why.
  const deadline = createLedgerDeadline(
    ledger,
    clock,
    options.ledgerTimeoutMs ?? defaultLedgerTimeoutMs,
    (error) => {
      if (!emitter.active) return;
      emitter.emit({
        type: 'ledger.unavailable',
        runId: options.runId,
        store: error.store,
        ...(error.target === undefined ? {} : { target: error.target }),
        message: redactSecrets(error.message).slice(0, 500),
        at: clock.now(),
      });
    },
  );
  return {
    runId: options.runId,
    ledger,
    deadline,
    clock,
    random: options.random ?? systemRandom,
    classify: createClassifier({ recognisers: [...(options.recognisers ?? [])], clock }),
    emitter,
    memory: createRunMemory(options.runId, ledger, deadline),
    renewer: leaseRenewerFor(ledger, clock),
    budget: resolveBudget(options.retry?.budget, clock),
    backoff: validateBackoff(options.retry ?? {}),
    repairBudget: options.repairBudget ?? defaultRepairBudget,
    maxElapsedMs: options.retry?.maxElapsedMs ?? retryDefaults.maxElapsedMs,
    deadlineAt: options.deadlineMs === undefined ? undefined : clock.now() + options.deadlineMs,
    onPoison: options.onPoison ?? 'stop',
    inFlightWaitMs: options.inFlightWaitMs ?? 5_000,
    telemetry: resolveTelemetry(options.tracer),
  };
}

function resolveBudget(option: RetryOptions['budget'], clock: Clock): RetryBudget | undefined {
  if (option === false) return undefined;
  if (option && typeof (option as RetryBudget).canRetry === 'function') {
    return option as RetryBudget;
  }
  return createRetryBudget({ ...(option as RetryBudgetOptions | undefined), clock });
}
