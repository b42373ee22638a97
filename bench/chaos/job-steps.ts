/** How a write is protected downstream: the thing each recovery strategy has to respect. */
export type WriteGuard = 'idempotent' | 'reconcile' | 'none';

export interface StepSpec {
  name: string;
  kind: 'read' | 'write';
  /** For writes: the downstream dedupes on the key, or can be asked by key, or neither. */
  guard?: WriteGuard | undefined;
  /** Which downstream service the step talks to (the outage takes one down). */
  dependency: string;
}

/** The input a step is called with. Repair and re-observe change it, as a model would. */
export interface StepInput {
  job: string;
  step: string;
  amount: number;
  /** Set by a repair: the 422 was about a missing field. */
  fixed: boolean;
  /** The state version the call was made against; a re-observe reads the newer one. */
  version: number;
}

/** Nine steps, as in the seed's "9-step agent job": reads and writes of each kind. */
export const jobSteps: readonly StepSpec[] = [
  { name: 'get_customer', kind: 'read', dependency: 'crm' },
  { name: 'check_inventory', kind: 'read', dependency: 'inventory' },
  { name: 'create_order', kind: 'write', guard: 'idempotent', dependency: 'orders' },
  { name: 'reserve_stock', kind: 'write', guard: 'reconcile', dependency: 'inventory' },
  { name: 'get_payment_method', kind: 'read', dependency: 'payments' },
  { name: 'charge_payment', kind: 'write', guard: 'idempotent', dependency: 'payments' },
  { name: 'update_crm', kind: 'write', guard: 'reconcile', dependency: 'crm' },
  { name: 'get_shipping_quote', kind: 'read', dependency: 'inventory' },
  { name: 'send_confirmation', kind: 'write', guard: 'none', dependency: 'mail' },
];

export function operationOf(input: Pick<StepInput, 'job' | 'step'>): string {
  return `${input.job}/${input.step}`;
}
