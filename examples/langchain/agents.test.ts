import { describe, expect, it } from 'vitest';
import {
  runLangChainGithubExample,
  runLangChainRefundExample,
  runLangChainRepairExample,
} from './agents.js';

const quiet = () => {};

describe('the LangChain examples', () => {
  it('refund: one refund under one key, reconciled', async () => {
    const { refunds, requests, outcome } = await runLangChainRefundExample(quiet);
    expect(refunds).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect(outcome.status).toBe('COMPLETED');
  });

  it('github: the SSH clone of the same response never runs; BLOCKED', async () => {
    const { executed, outcome } = await runLangChainGithubExample(quiet);
    expect(executed).toEqual(['github_api acme/secret']);
    expect(outcome.status).toBe('BLOCKED');
  });

  it('422: repaired through the model', async () => {
    const { sent, outcome } = await runLangChainRepairExample(quiet);
    expect(sent).toEqual([1000, 100]);
    expect(outcome.status).toBe('COMPLETED');
  });
});
