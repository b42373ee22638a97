import type { EventListener, RecoveryEvent } from './events.js';

/** The run's voice. `active` is false without a listener, so callers build no events. */
export interface Emitter {
  readonly active: boolean;
  emit(event: RecoveryEvent): void;
}

export function createEmitter(listener: EventListener | undefined): Emitter {
  if (!listener) return { active: false, emit() {} };
  return {
    active: true,
    emit(event) {
      try {
        const returned: unknown = listener(event);
        // An async listener's rejection must not become an unhandled rejection either.
        if (returned && typeof (returned as Promise<unknown>).then === 'function') {
          (returned as Promise<unknown>).then(undefined, () => {});
        }
      } catch {
        // A listener's bug must not change what happens to the tool call.
      }
    },
  };
}
