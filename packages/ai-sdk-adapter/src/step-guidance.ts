/** What prepareStep receives, across versions: ai@7 adds `initialInstructions`. */
export interface PrepareStepInput {
  messages?: readonly unknown[] | undefined;
  initialInstructions?: unknown;
}

type SystemMessage = { role: 'system'; content: string };

/**
 * Adds recovery guidance to the next step without dropping the user's own prompt.
 * ai@7 hands prepareStep the original instructions, so the guidance is appended to them
 * (an override carries forward, hence the reset once guidance is spent). ai@5/6 do not,
 * and a `system` override would replace the user's system prompt, so there the guidance
 * goes in a user message appended to this step's messages (an override that does not
 * carry forward; a user message also suits providers that reject mid-conversation
 * system messages).
 */
export function createGuidanceStep() {
  let injected = false;
  return (input: PrepareStepInput, guidance: string | undefined): Record<string, unknown> => {
    if ('initialInstructions' in input) {
      const initial = input.initialInstructions;
      if (guidance) {
        injected = true;
        return { instructions: appendInstructions(initial, guidance) };
      }
      if (!injected) return {};
      injected = false;
      return { instructions: initial ?? [] };
    }
    if (!guidance) return {};
    return {
      messages: [...(input.messages ?? []), { role: 'user', content: guidanceText(guidance) }],
    };
  };
}

export function guidanceText(guidance: string): string {
  return `[recourse] ${guidance}`;
}

function appendInstructions(initial: unknown, guidance: string): unknown {
  const note: SystemMessage = { role: 'system', content: guidanceText(guidance) };
  if (initial === undefined || initial === null || initial === '') return note.content;
  if (typeof initial === 'string') return `${initial}\n\n${note.content}`;
  if (Array.isArray(initial)) return [...initial, note];
  return [initial, note];
}
