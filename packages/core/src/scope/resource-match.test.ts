import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findCoveringDenial } from './find-covering-denial.js';
import { resourceCovers, resourcesOverlap } from './resource-match.js';

describe('resourceCovers', () => {
  it('covers equal resources and those below, on a path boundary', () => {
    expect(resourceCovers('https://github.com/acme/secret', 'https://github.com/acme/secret')).toBe(
      true,
    );
    expect(
      resourceCovers('https://github.com/acme/secret', 'https://github.com/acme/secret/issues/1'),
    ).toBe(true);
    expect(
      resourceCovers('https://github.com/acme/secret', 'https://github.com/acme/secret-2'),
    ).toBe(false);
    expect(resourceCovers('https://github.com', 'https://github.com/acme/secret')).toBe(true);
    expect(resourceCovers('https://github.com/acme/secret', 'https://github.com')).toBe(false);
    expect(resourceCovers('file:///', 'file:///etc')).toBe(true);
    expect(resourceCovers('payment:p-42', 'payment:p-420')).toBe(false);
  });

  it('reads a PostgreSQL resource without a port as that host and database on any port', () => {
    const anyPort = 'postgres://db.internal/billing';
    expect(resourceCovers(anyPort, 'postgres://db.internal:5432/billing/x')).toBe(true);
    expect(resourceCovers(anyPort, 'postgres://db.internal:6432/billing')).toBe(true);
    // No one port covers every port (a grant or an allow rule of one port does not lift it),
    // but the two overlap, so a denial of either blocks the other.
    expect(resourceCovers('postgres://db.internal:6432/billing', anyPort)).toBe(false);
    expect(resourcesOverlap('postgres://db.internal:6432/billing', anyPort)).toBe(true);
    expect(resourcesOverlap('postgres://db.internal:5432', anyPort)).toBe(true);
    expect(resourcesOverlap('postgres://db.internal:5432/analytics', anyPort)).toBe(false);
    expect(resourceCovers('postgres://db.internal:5432/billing', 'postgres://db/billing')).toBe(
      false,
    );
    expect(resourceCovers('postgres://db.internal:5432', 'postgres://db.internal:6432')).toBe(
      false,
    );
  });

  it('treats * on either side as covering', () => {
    expect(resourceCovers('*', 'payment:p-1')).toBe(true);
    expect(resourceCovers('payment:p-1', '*')).toBe(true);
  });

  it('always covers itself', () => {
    fc.assert(fc.property(fc.string(), (resource) => resourceCovers(resource, resource)));
  });
});

describe('findCoveringDenial', () => {
  const denials = [
    { resource: 'https://github.com/acme/secret', tool: 'github_api' },
    { resource: 'file:///etc/shadow', tool: 'read_file' },
  ];

  it('finds the denial a resource falls under', () => {
    expect(findCoveringDenial(['https://github.com/acme/secret/issues'], denials)?.tool).toBe(
      'github_api',
    );
    expect(findCoveringDenial(['https://github.com/acme/public'], denials)).toBeUndefined();
    expect(findCoveringDenial([], denials)).toBeUndefined();
  });

  it('never matches a name that only starts like the denied one', () => {
    const denied = 'https://github.com/acme/secret';
    for (const other of [
      'secretariat',
      'secret-santa/issues',
      'secrets',
      'secret.md',
      'secret_2',
    ]) {
      expect(resourcesOverlap(denied, `https://github.com/acme/${other}`)).toBe(false);
    }
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((tail) => !tail.startsWith('/')),
        (tail) => !resourcesOverlap(denied, `${denied}${tail}`),
      ),
    );
  });

  it('fails closed for wider reaches and the unknown reach', () => {
    expect(findCoveringDenial(['https://github.com'], denials)?.tool).toBe('github_api');
    expect(findCoveringDenial(['*'], denials)?.tool).toBe('github_api');
    expect(resourcesOverlap('file:///etc/shadow', 'file:///')).toBe(true);
  });
});
