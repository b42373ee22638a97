import { quoteAsData } from '../../classify/quote-as-data.js';
import type { Classification } from '../../types.js';
import type { ConcludeParts } from './conclude.js';

export interface PlanChange {
  from: number;
  to: number;
  /** Tool and code only: the failing system's own words reach the model solely quoted. */
  observation: string;
}

/** A REPLAN invalidates the current plan: the next version starts, and the run says why. */
export function replan(
  parts: ConcludeParts,
  tool: string,
  classification: Classification,
): PlanChange {
  const { state, emitter } = parts;
  const from = state.planVersion;
  const observation = observationOf(tool, classification);
  state.dispatch({ type: 'replanned', tool, code: classification.code, observation });
  const to = state.planVersion;
  if (emitter.active) {
    emitter.emit({
      type: 'plan.replanned',
      runId: parts.runId,
      from,
      to,
      tool,
      code: classification.code,
      observation,
      at: parts.now(),
    });
  }
  return { from, to, observation: `${tool} ${classification.code}` };
}

/** What invalidated a plan: the tool, the code and the failing system's words, as data. */
function observationOf(tool: string, classification: Classification): string {
  const words =
    classification.message.length > 120
      ? `${classification.message.slice(0, 119)}…`
      : classification.message;
  return words
    ? `${tool} ${classification.code} ${quoteAsData(words)}`
    : `${tool} ${classification.code}`;
}
