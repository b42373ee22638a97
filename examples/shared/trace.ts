import { styleText } from 'node:util';
import type { Outcome, RecoveryContract, RecoveryEvent } from '@recourse/core';

type Style = Parameters<typeof styleText>[0];
export type Log = (line: string) => void;
export type Observer = (event: RecoveryEvent) => void;

const paint = (style: Style, text: string) => styleText(style, text, { stream: process.stdout });

/**
 * A readable trace of one run: each tool call, the failure class, the decision and why,
 * what the model was told, and the outcome. Colour on a terminal, plain when piped.
 */
export function createTrace(log: Log = console.log, observe?: Observer) {
  const seen = new Set<string>();
  const onEvent = (event: RecoveryEvent) => {
    observe?.(event);
    // Calls answered without an attempt (ledger, block) have no call.started: name them.
    if ('toolCallId' in event && event.type !== 'call.started' && !seen.has(event.toolCallId)) {
      const input = 'input' in event ? short(JSON.stringify(event.input)) : '…';
      log(`${paint('bold', `→ ${event.tool}`)}(${input})  ${paint('dim', event.toolCallId)}`);
    }
    if ('toolCallId' in event) seen.add(event.toolCallId);
    switch (event.type) {
      case 'call.started':
        if (event.attempt === 1)
          log(
            `${paint('bold', `→ ${event.tool}`)}(${short(JSON.stringify(event.input))})  ${paint('dim', event.toolCallId)}`,
          );
        else log(paint('dim', `  attempt ${event.attempt}, same key ${event.idempotencyKey}`));
        break;
      case 'failure.classified':
        log(
          `  ${paint('red', `✗ ${event.classification.failureClass}`)} ${event.classification.code}: ${short(event.classification.message, 90)}`,
        );
        break;
      case 'decision.made':
        log(
          `  ${paint('yellow', `⇒ ${event.decision.action}`)} ${paint('dim', event.decision.reason)}`,
        );
        break;
      case 'retry.scheduled':
        log(paint('dim', `  ↻ retrying in ${event.delayMs} ms`));
        break;
      case 'reconcile.finished':
        log(
          `  ${paint('cyan', '? reconcile:')} ${event.happened ? 'the write had landed' : 'the write had not landed'}`,
        );
        break;
      case 'call.deduplicated':
        log(`  ${paint('cyan', '= not sent again:')} stored result from the ${event.source}`);
        break;
      case 'call.blocked':
        log(
          `  ${paint('magenta', '⛔ blocked before execution:')} ${event.resource} (${event.reason})`,
        );
        break;
      case 'call.failed':
        log(
          `  ${paint('blue', 'model told:')} ${short(JSON.stringify(pick(event.contract)), 160)}`,
        );
        break;
      case 'call.succeeded':
        log(`  ${paint('green', event.degraded ? '✓ degraded result (fallback)' : '✓ ok')}`);
        break;
      case 'run.stopped':
        log(
          paint('bold', `■ run stopped: ${event.outcome.status} (${event.outcome.reason ?? ''})`),
        );
        break;
      default:
        break;
    }
  };
  const printOutcome = (outcome: Outcome) => {
    const colour: Style =
      outcome.status === 'COMPLETED'
        ? 'green'
        : outcome.status === 'PARTIAL_RESULT'
          ? 'yellow'
          : 'red';
    log(
      `${paint('bold', 'outcome:')} ${paint(colour, outcome.status)}${outcome.reason ? ` ${outcome.reason}` : ''}`,
    );
    const details = {
      completed_steps: outcome.completed_steps,
      ...(outcome.next_possible_action
        ? { next_possible_action: outcome.next_possible_action }
        : {}),
      ...(outcome.needs_reconciliation
        ? { needs_reconciliation: outcome.needs_reconciliation }
        : {}),
      ...(outcome.blocked ? { blocked: outcome.blocked.map((b) => b.resource) } : {}),
    };
    log(paint('dim', `  ${JSON.stringify(details)}`));
  };
  return { onEvent, printOutcome };
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

function short(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
