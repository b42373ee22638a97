import { describe, expect, it } from 'vitest';
import { RecourseError } from '../errors.js';
import { createScopeGuard } from './scope-guard.js';

describe('createScopeGuard', () => {
  it('allows everything without rules', () => {
    expect(createScopeGuard().check(['*', 'https://github.com/acme/secret'])).toEqual({
      allowed: true,
    });
  });

  it('reads a PostgreSQL resource of unknown port against rules of one port, failing closed', () => {
    const anyPort = 'postgres://db.internal/billing';
    const deny = createScopeGuard({ deny: ['postgres://db.internal:5432/billing'] });
    expect(deny.check([anyPort])).toMatchObject({ allowed: false, reason: 'SCOPE_DENY' });
    expect(deny.check(['postgres://db.internal/analytics'])).toEqual({ allowed: true });
    const server = createScopeGuard({ deny: ['postgres://db.internal:5432'] });
    expect(server.check([anyPort])).toMatchObject({ allowed: false, reason: 'SCOPE_DENY' });
    const glob = createScopeGuard({ deny: ['postgres://db.internal:5432/bill*'] });
    expect(glob.check([anyPort])).toMatchObject({ allowed: false, reason: 'SCOPE_DENY' });
    expect(glob.check(['postgres://db.internal/analytics'])).toEqual({ allowed: true });
    const allow = createScopeGuard({ allow: ['postgres://db.internal:5432/billing'] });
    expect(allow.check(['postgres://db.internal:5432/billing'])).toEqual({ allowed: true });
    expect(allow.check([anyPort])).toMatchObject({ allowed: false, reason: 'SCOPE_NOT_ALLOWED' });
  });

  it('denies what a deny rule covers, canonicalising the pattern', () => {
    const guard = createScopeGuard({ deny: ['https://github.com/ACME/Secret'] });
    expect(guard.check(['https://github.com/acme/secret/issues/1'])).toEqual({
      allowed: false,
      resource: 'https://github.com/acme/secret/issues/1',
      rule: 'https://github.com/ACME/Secret',
      reason: 'SCOPE_DENY',
    });
    expect(guard.check(['https://github.com/acme/secret-2'])).toEqual({ allowed: true });
    // A call that may reach all of GitHub may reach the denied repository; the verdict names
    // the repository, not all of GitHub.
    expect(guard.check(['https://github.com'])).toEqual({
      allowed: false,
      resource: 'https://github.com/acme/secret',
      rule: 'https://github.com/ACME/Secret',
      reason: 'SCOPE_DENY',
    });
    expect(guard.check(['*'])).toMatchObject({ resource: 'https://github.com/acme/secret' });
  });

  it('names the static part of a glob rule when the call is wider than it', () => {
    const guard = createScopeGuard({ deny: ['https://github.com/acme/secret-*/**'] });
    expect(guard.check(['https://github.com'])).toMatchObject({
      allowed: false,
      resource: 'https://github.com/acme',
    });
    expect(guard.check(['https://github.com/acme/secret-1/x'])).toMatchObject({
      allowed: false,
      resource: 'https://github.com/acme/secret-1/x',
    });
    // No static part to name: the call's own reach.
    expect(createScopeGuard({ deny: ['payment:*'] }).check(['*'])).toMatchObject({
      resource: '*',
    });
  });

  it('matches globs on the resource and its ancestors', () => {
    const guard = createScopeGuard({ deny: ['https://github.com/ACME/*', 'file:///etc/**'] });
    expect(guard.check(['https://github.com/acme/x/pulls/3']).allowed).toBe(false);
    expect(guard.check(['https://github.com/other/x']).allowed).toBe(true);
    expect(guard.check(['file:///etc/shadow']).allowed).toBe(false);
    expect(guard.check(['file:///etcetera']).allowed).toBe(true);
  });

  it('blocks anything not allowed when an allow list is given; deny wins', () => {
    const guard = createScopeGuard({
      allow: ['https://github.com/acme/**', 'k8s://*/namespaces/staging/**'],
      deny: ['https://github.com/acme/secret'],
    });
    expect(guard.check(['https://github.com/acme/public']).allowed).toBe(true);
    expect(guard.check(['k8s://default/namespaces/staging/pods/web']).allowed).toBe(true);
    expect(guard.check(['k8s://default/namespaces/prod/pods/web'])).toMatchObject({
      allowed: false,
      reason: 'SCOPE_NOT_ALLOWED',
    });
    expect(guard.check(['https://github.com/acme/secret'])).toMatchObject({
      allowed: false,
      reason: 'SCOPE_DENY',
    });
    expect(guard.check([])).toEqual({ allowed: true });
  });

  it('blocks the unknown reach whenever a rule exists', () => {
    expect(createScopeGuard({ deny: ['payment:p-1'] }).check(['*'])).toMatchObject({
      allowed: false,
      reason: 'SCOPE_DENY',
    });
    expect(createScopeGuard({ allow: ['payment:*'] }).check(['*'])).toMatchObject({
      allowed: false,
      reason: 'SCOPE_NOT_ALLOWED',
    });
    expect(createScopeGuard({ allow: ['payment:*'] }).check(['payment:p-9']).allowed).toBe(true);
  });

  it('rules on capabilities written capability:<glob>', () => {
    const guard = createScopeGuard({
      deny: ['capability:delete'],
      allow: ['capability:read', 'capability:write', 'https://**'],
    });
    expect(guard.check(['https://a.com/x'], 'read').allowed).toBe(true);
    expect(guard.check(['https://a.com/x'], 'delete')).toMatchObject({
      allowed: false,
      reason: 'SCOPE_DENY',
    });
    expect(guard.check(['https://a.com/x'], 'admin')).toMatchObject({
      allowed: false,
      reason: 'SCOPE_NOT_ALLOWED',
    });
  });

  it('rejects invalid patterns, naming the field', () => {
    try {
      createScopeGuard({ allow: ['https://a.com', 'payment:*', ''] });
      expect.unreachable();
    } catch (error) {
      expect(RecourseError.isInstance(error)).toBe(true);
      expect((error as { field: string }).field).toBe('scope.allow[2]');
    }
    expect(() => createScopeGuard({ deny: [42 as unknown as string] })).toThrow(/scope\.deny\[0\]/);
  });
});
