import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { listPublishedPackages, type WorkspacePackage } from './workspace-packages.js';

export interface PackedPackage extends WorkspacePackage {
  /** Absolute path of the tarball. */
  tarball: string;
}

const seconds = (started: number) => `${((performance.now() - started) / 1000).toFixed(1)} s`;

/**
 * Builds every published package from a clean `dist/` and packs it with `pnpm pack` (which
 * applies `publishConfig` and turns `workspace:` ranges into versions, as `pnpm publish`
 * does) into `outDir`. `log` hears one line per step as it starts and ends (the build of the
 * core alone takes most of a minute on a slow machine).
 */
export function packPackages(
  root: string,
  outDir: string,
  log: (line: string) => void = () => {},
): PackedPackage[] {
  const packages = listPublishedPackages(root);
  // tsc -b never deletes the output of a deleted source file: a stale dist/ would ship it.
  for (const pkg of packages) rmSync(path.join(pkg.dir, 'dist'), { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // The core first: every other package builds on it (tsc -b follows the references).
  const order = [...packages].sort(
    (a, b) => Number(b.name === '@recourse/core') - Number(a.name === '@recourse/core'),
  );
  for (const [index, pkg] of order.entries()) {
    const started = performance.now();
    log(`build ${index + 1}/${order.length} ${pkg.name} (tsc) …`);
    execFileSync('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], {
      cwd: pkg.dir,
      stdio: 'inherit',
    });
    log(`build ${index + 1}/${order.length} ${pkg.name} done in ${seconds(started)}`);
  }
  return packages.map((pkg, index) => {
    log(`pack ${index + 1}/${packages.length} ${pkg.name}`);
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
