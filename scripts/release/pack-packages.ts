import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { listPublishedPackages, type WorkspacePackage } from './workspace-packages.js';

export interface PackedPackage extends WorkspacePackage {
  /** Absolute path of the tarball. */
  tarball: string;
}

/**
 * Builds every published package from a clean `dist/` and packs it with `pnpm pack` (which
 * applies `publishConfig` and turns `workspace:` ranges into versions, as `pnpm publish`
 * does) into `outDir`.
 */
export function packPackages(root: string, outDir: string): PackedPackage[] {
  const packages = listPublishedPackages(root);
  // tsc -b never deletes the output of a deleted source file: a stale dist/ would ship it.
  for (const pkg of packages) rmSync(path.join(pkg.dir, 'dist'), { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  execFileSync('pnpm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  return packages.map((pkg) => {
    const before = new Set(readdirSync(outDir));
    // prepack runs `tsc -b` again: a no-op after the build above, and what makes a bare
    // `pnpm pack` in a package folder ship a fresh dist/.
    execFileSync('pnpm', ['pack', '--pack-destination', outDir], {
      cwd: pkg.dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const created = readdirSync(outDir).filter(
      (file) => file.endsWith('.tgz') && !before.has(file),
    );
    const expected = `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
    const tarball = created.find((file) => file === expected) ?? created[0] ?? expected;
    return { ...pkg, tarball: path.join(outDir, tarball) };
  });
}
