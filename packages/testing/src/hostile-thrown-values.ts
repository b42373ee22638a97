/** A Proxy of an Error, already revoked: any property read or `instanceof` check throws. */
export function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable(new Error('revoked'), {});
  revoke();
  return proxy;
}

function cyclicCause(): Error {
  const outer = new Error('outer failure');
  const inner = new Error('inner failure', { cause: outer });
  Object.defineProperty(outer, 'cause', { value: inner });
  return outer;
}

function throwingGetters(): Error {
  const error = new Error('hidden');
  for (const name of ['message', 'status', 'code', 'name', 'stack']) {
    Object.defineProperty(error, name, {
      get() {
        throw new Error(`${name} getter throws`);
      },
    });
  }
  return error;
}

/**
 * What a tool may throw besides a well-formed Error: non-Errors, an error whose getters
 * throw, a revoked Proxy, a cyclic cause, a 10 MB message. Each entry is `[name, make]`
 * (for `it.each`); `make()` builds a fresh value. A recovery layer must turn every one
 * into a classified, bounded failure, and never throw itself.
 */
export const hostileThrownValues: readonly (readonly [name: string, make: () => unknown])[] = [
  ['a number', () => 42],
  ['null', () => null],
  ['undefined', () => undefined],
  ['a string', () => 'plain string thrown'],
  ['an error whose message and status getters throw', throwingGetters],
  ['a revoked Proxy', revokedProxy],
  ['an error with a cyclic cause', cyclicCause],
  ['an error with a 10 MB message', () => new Error(`boom ${'x'.repeat(10_000_000)}`)],
];
