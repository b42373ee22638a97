import { styleText } from 'node:util';
import { redactSecrets } from '../classify/redact.js';
import type { Outcome } from '../contract/outcome.js';
import type { RecoveryContract } from '../contract/recovery-contract.js';
import type { RecoveryEvent } from '../runtime/run/events.js';

export interface ConsoleTraceOptions {
  /** Colour. Default: the terminal's answer (on a TTY, off when piped or with `NO_COLOR`). */
  color?: boolean | undefined;
  /** Where lines go. Default: `console.log`. */
  write?: ((line: string) => void) | undefined;
}

/** An `onEvent` listener that prints the run as it happens; `outcome()` prints the end. */
export interface ConsoleTrace {
  (event: RecoveryEvent): void;
  /** Prints the run's outcome: status, reason, what completed, what recourse recovered. */
  outcome(outcome: Outcome): void;
}

type Style = Parameters<typeof styleText>[0];
type CallEvent = Extract<RecoveryEvent, { toolCallId: string }>;

/** What each mark in the trace means, for a reader who has never seen one. */
export const consoleTraceLegend = [
  'call_1 → a tool call (its id on every line of it, name, input)   ✗ a failure: its class and code   ⇒ the decision and why',
  '↻ a retry after a backoff   ? a reconcile read   = answered without sending again   ✓ done',
  '⛔ refused before it ran   ⋯ calls of the same turn not run   ✎ what the model was told   ■ the run stopped',
  "↶ an undo (compensation)   ! a result not stored   • a note on a tool's policy, e.g. no sideEffects declared",
].join('\n');

/**
 * A readable trace of a run, one line per event: each tool call, its failure class and
 * code, the decision and why, what the model was told, and the outcome. Input and error
 * text are redacted. Calls of one turn refused after the run stopped are shown as one line.
 */
export function createConsoleTrace(options: ConsoleTraceOptions = {}): ConsoleTrace {
  const write = options.write ?? ((line: string) => console.log(line));
  const paint = (style: Style, text: string) =>
    options.color === false
      ? text
      : styleText(
          style,
          text,
          options.color === true ? { validateStream: false } : { stream: process.stdout },
        );
  const named = new Set<string>();
  let notRun = 0;

  const flush = () => {
    if (notRun === 0) return;
    const calls = notRun === 1 ? 'call' : 'calls';
    write(
      paint('dim', `  ⋯ ${notRun} more ${calls} of the same turn, not run (the run had stopped)`),
    );
    notRun = 0;
  };

  // A header starts every call: where it starts (its first attempt, an answer from the
  // ledger, a refusal), and, failing that, at its first line. Two runs (or a run and its
  // restart) may both have a `call_1`: each gets its own header.
  const header = (event: CallEvent, id: string) => {
    const name = `${event.runId}\u0000${event.toolCallId}`;
    if (named.has(name) && !startsCall(event)) return;
    named.add(name);
    if (named.size > 10_000) named.delete(named.values().next().value as string);
    const input = 'input' in event ? event.input : undefined;
    write(
      `${paint('dim', id)} ${paint('bold', `→ ${event.tool}`)}(${input === undefined ? '…' : short(json(input), 160)})`,
    );
  };

  const trace = ((event: RecoveryEvent) => {
    if (event.type === 'call.blocked' && event.reason === 'RUN_STOPPED') {
      notRun++;
      return;
    }
    if (event.type === 'call.failed' && event.contract.code === 'RUN_STOPPED') return;
    flush();
    const line = describe(event, paint);
    if (!('toolCallId' in event)) {
      if (line !== undefined) write(line);
      return;
    }
    // Every line of a call starts with its id, so that calls of one turn can be told apart.
    const id = shortCallId(event.toolCallId);
    header(event, id);
    if (line !== undefined) write(`${paint('dim', id)} ${line}`);
  }) as ConsoleTrace;

  trace.outcome = (outcome) => {
    flush();
    const colour: Style =
      outcome.status === 'COMPLETED'
        ? 'green'
        : outcome.status === 'PARTIAL_RESULT'
          ? 'yellow'
          : 'red';
    write(
      `${paint('bold', 'outcome:')} ${paint(colour, outcome.status)}${outcome.reason ? ` ${outcome.reason}` : ''}`,
    );
    write(paint('dim', `  ${outcome.summary}`));
    const details = {
      completed_steps: outcome.completed_steps,
      ...(outcome.recoveries.length
        ? { recoveries: outcome.recoveries.map((r) => `${r.tool}: ${r.code} → ${r.action}`) }
        : {}),
      ...(outcome.needs_reconciliation
        ? { needs_reconciliation: outcome.needs_reconciliation }
        : {}),
      // By resource, as the reader thinks of it: once, however many tools were refused on it.
      ...(outcome.blocked ? { blocked: [...new Set(outcome.blocked.map((b) => b.resource))] } : {}),
      ...(outcome.plan.version > 1 ? { plan_version: outcome.plan.version } : {}),
      ...(outcome.compensated
        ? {
            compensated: outcome.compensated,
            failed: outcome.failed,
            not_compensable: outcome.not_compensable,
            ...(outcome.forgotten ? { forgotten: outcome.forgotten } : {}),
          }
        : {}),
    };
    write(paint('dim', `  ${json(details)}`));
  };
  return trace;
}

/** The first event of a call: it starts, is answered from the ledger, or is refused. */
function startsCall(event: RecoveryEvent): boolean {
  return (
    (event.type === 'call.started' && event.attempt === 1) ||
    (event.type === 'call.deduplicated' && event.source === 'ledger') ||
    event.type === 'call.blocked'
  );
}

function describe(
  event: RecoveryEvent,
  paint: (style: Style, text: string) => string,
): string | undefined {
  switch (event.type) {
    case 'call.started':
      return event.attempt === 1
        ? undefined
        : paint(
            'dim',
            `  attempt ${event.attempt}${event.idempotencyKey ? `, same key ${event.idempotencyKey}` : ''}`,
          );
    case 'failure.classified':
      return `  ${paint('red', `✗ ${event.classification.failureClass}`)} ${event.classification.code}: ${short(event.classification.message, 90)}`;
    case 'decision.made': {
      // The code only when it says more than the action (`⇒ ABORT POISON:`, not `⇒ RETRY RETRY:`).
      const { action, code, reason } = event.decision;
      const said = code === action ? reason : `${code}: ${reason}`;
      return `  ${paint('yellow', `⇒ ${action}${code === action ? ':' : ''}`)} ${paint('dim', said)}`;
    }
    case 'retry.scheduled':
      return paint('dim', `  ↻ retrying in ${event.delayMs} ms`);
    case 'reconcile.finished':
      return `  ${paint('cyan', '? reconcile:')} ${event.happened === 'invalid' ? 'no valid answer; the write stays in doubt' : event.happened ? 'the write had landed' : 'the write had not landed'}`;
    case 'call.deduplicated':
      return `  ${paint('cyan', '= not sent again:')} the stored result from the ${event.source}`;
    case 'call.blocked':
      return `  ${paint('magenta', '⛔ refused before it ran:')} ${event.resource} (${event.reason})`;
    case 'call.failed':
      return `  ${paint('blue', '✎ model told:')} ${short(json(pick(event.contract)), 160)}`;
    case 'call.succeeded':
      return `  ${paint('green', event.degraded ? '✓ degraded result (fallback), marked PARTIAL_RESULT' : '✓ ok')}`;
    case 'result.unstorable':
      return `  ${paint('yellow', '! result not stored:')} ${event.reason}; duplicates will be told to re-read`;
    case 'result.not-stored':
      return `  ${paint('yellow', '! result not recorded by the ledger:')} ${event.reason}; the caller has it, duplicates are not re-sent`;
    case 'fallback.used':
      return undefined; // the decision line said FALLBACK; the success line says degraded
    case 'compensation.finished':
      return `  ${paint(event.status === 'compensated' ? 'green' : 'red', `↶ compensation ${event.status}`)}`;
    case 'compensation.forgotten':
      return `  ${paint('red', `↶ not undone: ${event.count} older writes of ${event.tools.join(', ')}`)} ${paint('dim', `(past the newest ${event.kept.toLocaleString('en-US')} this run keeps; undo them by hand)`)}`;
    case 'policy.undeclared':
      return paint(
        'dim',
        `• ${event.tool} does not declare sideEffects: treated as a tool that may write`,
      );
    case 'policy.unused':
      return paint(
        'yellow',
        `• policies.${event.tool} names no wrapped tool${event.suggestion ? ` (did you mean "${event.suggestion}"?)` : ''}`,
      );
    case 'tool.failures-hidden':
      return paint('yellow', `• ${event.tool} hides its failures from recourse: ${event.reason}`);
    case 'resource.failed':
      // The missing shell parser has said so on the console already, once per process.
      return event.code === 'SHELL_PARSER_UNAVAILABLE'
        ? undefined
        : paint(
            'yellow',
            `• ${event.tool}: its resource function threw (${event.code}: ${short(event.message, 90)}); its calls reach everything`,
          );
    case 'plan.replanned':
      return `  ${paint('yellow', `⇒ plan v${event.from} invalidated by ${event.observation}; plan v${event.to}`)}`;
    case 'ledger.unavailable':
      return `${paint('red', `! ledger unreachable: ${event.store}${event.target ? ` at ${event.target}` : ''}`)} ${paint('dim', `${short(event.message, 160)}; calls that need it retry, then fail as LEDGER_UNAVAILABLE`)}`;
    case 'denial.recorded':
      return `  ${paint('magenta', '⛔ denied, closed by every route:')} ${event.denial.resource}`;
    case 'access.granted':
      return `  ${paint('green', '✓ access granted:')} ${event.resource} by ${event.grantedBy}`;
    case 'run.stopped':
      return paint(
        'bold',
        `■ run stopped: ${event.outcome.status} (${event.outcome.reason ?? ''})`,
      );
    default:
      return undefined;
  }
}

function pick(contract: RecoveryContract) {
  const { failure_class, recommended_recovery, retry_same_action, code, invalid_field } = contract;
  return {
    failure_class,
    recommended_recovery,
    retry_same_action,
    code,
    ...(invalid_field ? { invalid_field } : {}),
  };
}

function json(value: unknown): string {
  try {
    return redactSecrets(JSON.stringify(value) ?? String(value));
  } catch {
    return '[unprintable]';
  }
}

/**
 * A call id short enough to start every line of its call: ids of up to 12 characters as
 * they are, longer ones (a provider's `call_…` of 24 and more) as their last 8 characters,
 * which is where ids of one turn differ.
 */
export function shortCallId(id: string): string {
  return id.length <= 12 ? id : `…${id.slice(-8)}`;
}

function short(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
