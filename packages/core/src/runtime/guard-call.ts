import type { Classification } from '../types.js';
import type { AccessControl } from './access/access-control.js';
import type { Call } from './call/call.js';
import type { CallEnding } from './call/call-ending.js';
import { decideForCall } from './call/decide-for-call.js';
import { failure } from './call/fail-call.js';

/**
 * What must hold before a call runs: the run still goes on, the call reaches nothing
 * closed, and its operation is not quarantined as poison. Undefined when it may run.
 * Costs nothing when the run has learnt nothing that could refuse it.
 */
export async function guardCall(
  call: Call,
  access: AccessControl,
): Promise<CallEnding | undefined> {
  const { memory } = call.run;
  const name = call.tool.name;
  const refused = await access.refuse(call.tool, call.request.input);
  if (refused) return refused;
  const facts = await memory.current();
  if (!facts.poisonedTools.has(name)) return undefined;
  const poisoned = facts.poison.get(call.operation);
  if (!poisoned) return undefined;
  // Quarantined: refused before it runs, with the poison contract of its fingerprint.
  const classification: Classification = {
    failureClass: poisoned.failureClass,
    code: 'POISON',
    message: `${name} failed the same way (${poisoned.code}) after the repair budget was spent`,
  };
  const decision = decideForCall(call, classification, {
    repairAttempts: Number.POSITIVE_INFINITY,
  });
  return {
    ...failure(call, classification, decision),
    refusal: { resource: '(quarantined)', block: false, counted: true },
  };
}
