import type { Classification } from '../types.js';
import type { AccessControl } from './access/access-control.js';
import type { Call, CallEnding } from './call/call.js';
import { decideForCall } from './call/call.js';
import { ledgerFault } from './call/ledger-answers.js';
import { refusedEnding } from './call/tool-call.js';
import type { LearnedFacts } from './run/run-memory.js';

/**
 * What must hold before a call runs: the run still goes on, the call reaches nothing
 * closed, and its operation is not quarantined as poison. Undefined when it may run.
 * Costs nothing when the run has learnt nothing that could refuse it. The run's facts
 * must be readable: a store that fails or does not answer in time is asked again like a
 * claim, and then the call is not run (`LEDGER_UNAVAILABLE`), since another worker's
 * denial or poison may be among what could not be read.
 */
export async function guardCall(
  call: Call,
  access: AccessControl,
): Promise<CallEnding | undefined> {
  if (access.failed()) return access.runStopped();
  for (let tries = 1; ; tries++) {
    const facts = await call.run.memory.current();
    // What is known refuses even while the store is unreadable: a closed route stays closed.
    const refused = access.refuse(call.tool, call.request.input, facts) ?? quarantined(call, facts);
    if (refused) return refused;
    if (facts.unreadable === undefined) return undefined;
    const ended = await ledgerFault(call, facts.unreadable, tries);
    if (ended) return ended;
  }
}

/** A poison operation: refused before it runs, with the poison contract of its fingerprint. */
function quarantined(call: Call, facts: LearnedFacts): CallEnding | undefined {
  const name = call.tool.name;
  if (!facts.poisonedTools.has(name)) return undefined;
  const poisoned = facts.poison.get(call.operation);
  if (!poisoned) return undefined;
  const classification: Classification = {
    failureClass: poisoned.failureClass,
    code: 'POISON',
    message: `${name} failed the same way (${poisoned.code}) after the repair budget was spent`,
  };
  const decision = decideForCall(call, classification, {
    repairAttempts: Number.POSITIVE_INFINITY,
  });
  return refusedEnding(classification, decision, '(quarantined)', {
    counted: true,
    key: call.endingKey,
  });
}
