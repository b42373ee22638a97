// What the README says about undeclared tools, runs and the `key` policy, checked.
import { describe, expect, it } from 'vitest';
import { createHarness, timeoutAfterWrite } from '../../test-support/runtime-harness.js';

const email = {
  to: 'billing@acme.test',
  subject: 'Refund issued',
  body: 'Your refund is on its way.',
};

describe('an undeclared tool', () => {
  it('is not deduplicated when it succeeds: two workers of one run, same input, two emails', async () => {
    const first = createHarness();
    const second = createHarness({}, { ledger: first.ledger, clock: first.clock });
    const sent: string[] = [];
    const send = () => sent.push('sent');
    expect(await first.run('send_email', email, send)).toMatchObject({ ok: true });
    expect(await second.run('send_email', email, send)).toMatchObject({
      ok: true,
      deduplicated: false,
    });
    expect(sent).toHaveLength(2);
    expect(first.events.map((event) => event.type)).toContain('policy.undeclared');
  });

  it('is claimed to keep a doubt: after a timeout that may have sent it, a repeat is not sent', async () => {
    const first = createHarness();
    const second = createHarness({}, { ledger: first.ledger, clock: first.clock });
    let sent = 0;
    await first.run('send_email', email, () => {
      sent++;
      throw timeoutAfterWrite();
    });
    const again = await second.run('send_email', email, () => ++sent);
    expect(again).toMatchObject({ ok: false, contract: { retry_same_action: false } });
    expect(sent).toBe(1);
  });
});

describe('a run', () => {
  const policies = { send_email: { sideEffects: true } };

  it('reused for a second customer answers its identical email from the ledger: not sent', async () => {
    const h = createHarness({ policies });
    let sent = 0;
    await h.run('send_email', email, () => ++sent); // customer A's request
    const customerB = await h.run('send_email', email, () => ++sent);
    expect(customerB).toMatchObject({ ok: true, deduplicated: true, value: 1 });
    expect(sent).toBe(1);
  });

  it('new per user request sends each request its email', async () => {
    const a = createHarness({ policies, runId: 'request-a' });
    const b = createHarness({ policies, runId: 'request-b' }, { ledger: a.ledger, clock: a.clock });
    let sent = 0;
    await a.run('send_email', email, () => ++sent);
    expect(await b.run('send_email', email, () => ++sent)).toMatchObject({ deduplicated: false });
    expect(sent).toBe(2);
  });
});

describe('a policy key', () => {
  it('sends two identical emails on purpose, one per request, and still dedupes each', async () => {
    let request = 'req-1';
    const h = createHarness({
      policies: {
        send_email: {
          sideEffects: true,
          key: (input: { to: string }, { runId }) => `${runId}:${request}:${input.to}`,
        },
      },
    });
    let sent = 0;
    await h.run('send_email', email, () => ++sent);
    request = 'req-2'; // the user asked again, in the same conversation
    await h.run('send_email', email, () => ++sent);
    const repeat = await h.run('send_email', email, () => ++sent); // the model repeats itself
    expect(repeat).toMatchObject({ ok: true, deduplicated: true });
    expect(sent).toBe(2);
  });
});
