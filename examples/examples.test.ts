import { describe, expect, it } from 'vitest';
import { runExtractExample } from './ai-sdk/extract.js';
import { runGithubExample } from './ai-sdk/github.js';
import { runMergeExample } from './ai-sdk/merge.js';
import { runRefundExample } from './ai-sdk/refund.js';
import { runOpenAIGithubExample } from './openai/github.js';
import { runOpenAIRefundExample } from './openai/refund.js';

// The examples are the demo; these keep them honest (offline, scripted provider).
const quiet = () => {};

describe.skipIf(process.env.OPENAI_API_KEY)('examples (offline)', () => {
  it('refund: exactly one refund under one key, although the response was lost and the model asked twice', async () => {
    const { outcome, refunds, requests } = await runRefundExample(quiet);
    expect(refunds).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect(outcome.status).toBe('COMPLETED');
  });

  it('github: the 403 blocks the run and both bypass routes, which never execute', async () => {
    const { outcome, executed } = await runGithubExample(quiet);
    expect(executed).toEqual(['github_api acme/secret']);
    expect(outcome).toMatchObject({
      status: 'BLOCKED',
      next_possible_action: 'request authorized operator',
    });
  });

  it('extract: two repairs, then poison stops the loop', async () => {
    const { outcome, calls, modelRequests } = await runExtractExample(quiet);
    expect(calls).toBe(3);
    expect(modelRequests).toBe(3);
    expect(outcome).toMatchObject({ status: 'FAILED', reason: 'POISON' });
  });

  it('merge: re-observe after a 412, then merge at the new head', async () => {
    const { outcome, merges } = await runMergeExample(quiet);
    expect(merges).toEqual(['a1b2c3', 'd4e5f6']);
    expect(outcome.status).toBe('COMPLETED');
  });

  it('refund through the OpenAI SDK: one refund', async () => {
    const { outcome, refunds } = await runOpenAIRefundExample(quiet);
    expect(refunds).toHaveLength(1);
    expect(outcome.status).toBe('COMPLETED');
  });

  it('github through the OpenAI SDK: blocked, shell never executed', async () => {
    const { outcome, executed } = await runOpenAIGithubExample(quiet);
    expect(executed).toEqual(['github_api acme/secret']);
    expect(outcome.status).toBe('BLOCKED');
  });
});
