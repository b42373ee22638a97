import type { Classifier } from '../classify/index.js';
import { createClassifier } from '../classify/index.js';
import { redactSecrets } from '../classify/redact.js';
import type { RandomSource } from '../clock.js';
import { type Clock, systemClock, systemRandom } from '../clock.js';
import { boundKey, keyFromPayloadHash } from '../keys/idempotency-key.js';
import type { Ledger } from '../ledger/ledger.js';
import { MemoryLedger } from '../ledger/memory-ledger.js';
import type { ResolvedBackoff } from '../policy/backoff.js';
import { validateBackoff } from '../policy/backoff.js';
import { defaultRepairBudget } from '../policy/decide-recovery.js';
import {
  createRetryBudget,
  type RetryBudget,
  type RetryBudgetOptions,
} from '../policy/retry-budget.js';
import { resolveTelemetry } from '../trace/resolve-telemetry.js';
import { createEngineRun, type EngineRun } from './call/engine-run.js';
import type { LeaseRenewer } from './call/lease-renewer.js';
import { leaseRenewerFor } from './call/lease-renewer.js';
import type { LedgerDeadline } from './ledger-deadline.js';
import { createLedgerDeadline, defaultLedgerTimeoutMs } from './ledger-deadline.js';
import {
  type RecoveryOptions,
  type RetryOptions,
  retryDefaults,
} from './options/recovery-options.js';
import type { ResolvedTool } from './options/tool-table.js';
import type { Emitter } from './run/emitter.js';
import { createEmitter } from './run/emitter.js';
import type { RunMemory } from './run/run-memory.js';
import { createRunMemory } from './run/run-memory.js';
import type { Telemetry } from './telemetry.js';

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
    engine: options.engine ? createEngineRun(options.engine, clock) : undefined,
  };
}

function resolveBudget(option: RetryOptions['budget'], clock: Clock): RetryBudget | undefined {
  if (option === false) return undefined;
  if (option && typeof (option as RetryBudget).canRetry === 'function') {
    return option as RetryBudget;
  }
  return createRetryBudget({ ...(option as RetryBudgetOptions | undefined), clock });
}

/** What every call of a run shares. */
export interface RunParts {
  runId: string;
  ledger: Ledger;
  /** Bounds every ledger operation a call waits for (`ledgerTimeoutMs`). */
  deadline: LedgerDeadline;
  clock: Clock;
  random: RandomSource;
  classify: Classifier;
  emitter: Emitter;
  memory: RunMemory;
  renewer: LeaseRenewer;
  budget: RetryBudget | undefined;
  backoff: ResolvedBackoff;
  repairBudget: number;
  /** How long a call may spend recovering from transient failures. */
  maxElapsedMs: number;
  /** When the run's time is up (`deadlineMs` from its start), on the run's clock. */
  deadlineAt: number | undefined;
  onPoison: 'stop' | 'replan';
  inFlightWaitMs: number;
  telemetry: Telemetry | undefined;
  /** Set when a durable engine executes the run (`RecoveryOptions.engine`). */
  engine: EngineRun | undefined;
}

/** The idempotency key of an operation: the policy's own, or run + tool + input hash. */
export function keyFor(
  runId: string,
  tool: ResolvedTool,
  input: unknown,
  hash: () => string,
): string {
  const own = tool.policy.key;
  return own
    ? boundKey(String(own(input, { runId, toolName: tool.name })))
    : keyFromPayloadHash(runId, tool.name, hash());
}
