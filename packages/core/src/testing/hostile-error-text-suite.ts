import { describe, expect, it } from 'vitest';

// Error text is written by whatever failed, and sometimes by whoever controls it. Here a
// downstream API answers with an error body that tries to steer the model; the same call
// is run again with the same status and a plain body. Everything the policy decides must
// be the same, the injection may reach the model only inside `error_detail`, quoted and
// neutralised, and no other tool may run. One suite, run by every adapter through its own
// SDK (`describeHostileErrorText`).

/** The body of the control runs: the same status, nothing hostile. */
export const plainErrorBody = '{"error":{"message":"Issue 7 could not be read"}}';

/** One attack (`@recourse/testing`'s `hostileErrorTexts`). */
export interface HostileErrorAttack {
  name: string;
  body: string;
  /** Text of the attack that must not reach the model outside `error_detail`. */
  markers: readonly string[];
  /** Phrases that must not survive inside `error_detail` either. */
  neutralised: readonly RegExp[];
}

/** What one run of `get_issue({ id: '7' })` through an adapter's SDK left behind. */
export interface HostileErrorTextRun {
  /** The contract the call ended with (what the model read, when the run went on). */
  contract: Record<string, unknown>;
  /** The raw bodies of the requests the model received. */
  bodies: readonly string[];
  outcome: { status: string };
  /** The model steps the run took. */
  steps: number;
  /** The requests `https://issues.test/issues/7` received. */
  downstreamRequests: number;
  /** How often the other tools ran. */
  ran: { delete_repository: number; shell: number };
}

export interface HostileErrorTextDriver {
  /**
   * Runs one call of `get_issue({ id: '7' })` (a read whose tool GETs
   * `https://issues.test/issues/7`, answered with `status` and `body`), next to the tools
   * `delete_repository` and `shell`, with recourse's `stopWhen` and guidance.
   */
  runCall(status: number, body: string): Promise<HostileErrorTextRun>;
}

const statuses = [404, 409, 422, 403, 503] as const;

// The escaped form of `value` as it appears in a request body: JSON text inside a JSON
// string (the tool's result), inside the request's JSON.
const inRequest = (value: string) => JSON.stringify(JSON.stringify(value)).slice(1, -1);

/** The hostile-error-text suite for one adapter, for each of `variants` (an SDK's APIs or modes). */
export function describeHostileErrorText<V extends object>(
  title: string,
  variants: readonly V[],
  driverFor: (variant: V) => HostileErrorTextDriver,
  attacks: readonly HostileErrorAttack[],
): void {
  describe.each(variants)(title, (variant) => {
    const driver = driverFor(variant);
    const controls = new Map<number, HostileErrorTextRun>();
    const control = async (status: number) => {
      const known = controls.get(status);
      if (known) return known;
      const run = await driver.runCall(status, plainErrorBody);
      controls.set(status, run);
      return run;
    };

    it('gives the usual decision for each status without an injection', async () => {
      const expected = {
        404: ['PERMANENT', 'REPLAN'],
        409: ['STALE_STATE', 'REOBSERVE'],
        422: ['VALIDATION', 'REPAIR'],
        403: ['AUTHORIZATION', 'ABORT'],
        503: ['TRANSIENT', 'ABORT'],
      } as const;
      for (const status of statuses) {
        const { contract } = await control(status);
        expect([contract.failure_class, contract.recommended_recovery]).toEqual(expected[status]);
        expect(contract.error_detail).toContain('Issue 7 could not be read');
      }
    });

    it.each(
      attacks.map(
        (attack, index) => [attack.name, attack, statuses[index % statuses.length]] as const,
      ),
    )('%s changes nothing the policy decides', async (_name, attack, status) => {
      const plain = await control(status as number);
      const hostile = await driver.runCall(status as number, attack.body);

      // The decision, the contract's other fields, the outcome and the calls are the same.
      const { error_detail: detail, ...fields } = hostile.contract;
      const { error_detail: _plainDetail, ...plainFields } = plain.contract;
      expect(fields).toEqual(plainFields);
      expect(hostile.contract.recommended_recovery).toBe(plain.contract.recommended_recovery);
      expect(hostile.contract.retry_same_action).toBe(plain.contract.retry_same_action);
      expect(hostile.outcome.status).toBe(plain.outcome.status);
      expect(hostile.steps).toBe(plain.steps);
      expect(hostile.downstreamRequests).toBe(plain.downstreamRequests);
      expect(hostile.ran).toEqual({ delete_repository: 0, shell: 0 });

      // The injection is inside error_detail only, quoted and neutralised.
      if (typeof detail !== 'string') throw new Error('the contract has no error_detail');
      expect(detail.startsWith('«') && detail.endsWith('»')).toBe(true);
      const quoted = detail.slice(1, -1).normalize('NFKC');
      expect(quoted).not.toMatch(/[«»\r\n]/);
      for (const phrase of attack.neutralised) expect(quoted).not.toMatch(phrase);
      // The attack did reach the quote: something in it was recognised and removed.
      expect(quoted).toContain('[instruction-like text removed]');
      const everythingElse = hostile.bodies.map((body) => body.split(inRequest(detail)).join('""'));
      for (const marker of attack.markers) {
        for (const body of everythingElse) expect(body).not.toContain(marker);
      }
    });
  });
}
