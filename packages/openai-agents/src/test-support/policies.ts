import { shellResources, type ToolPolicy, urlResource } from '@recourse/core';
import { findRefund } from './services.js';

/** What each test tool does to the world, as a recourse policy. */
export const policies: Record<string, ToolPolicy> = {
  refund_payment: {
    sideEffects: true,
    reconcile: async (_input, { idempotencyKey }) =>
      (await findRefund(idempotencyKey))
        ? { happened: true, result: 'refunded' }
        : { happened: false },
  },
  payments_status: { sideEffects: false },
  create_customer: { sideEffects: true },
  merge_pull_request: { sideEffects: true },
  github_repo: {
    sideEffects: false,
    resource: (input: { repo: string }) => urlResource(`https://github.com/${input.repo}`),
  },
  shell: {
    sideEffects: true,
    resource: (input: { command: string }) => shellResources(input.command),
  },
  extract_invoice: { sideEffects: false },
};
