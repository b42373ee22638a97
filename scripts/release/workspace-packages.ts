import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface WorkspacePackage {
  name: string;
  version: string;
  /** Absolute path of the package folder. */
  dir: string;
  /** Path relative to the repository root, e.g. `packages/core`. */
  relativeDir: string;
  manifest: PackageManifest;
}

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, unknown>;
  publishConfig?: { exports?: Record<string, unknown> };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  [field: string]: unknown;
}

/** Every package under packages/ that is published (not `private`), so a new one is picked up by itself. */
export function listPublishedPackages(root: string): WorkspacePackage[] {
  const packagesDir = path.join(root, 'packages');
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(packagesDir, entry.name))
    .filter((dir) => {
      try {
        readFileSync(path.join(dir, 'package.json'));
        return true;
      } catch {
        return false;
      }
    })
    .map((dir) => {
      const manifest = JSON.parse(
        readFileSync(path.join(dir, 'package.json'), 'utf8'),
      ) as PackageManifest;
      return {
        name: manifest.name,
        version: manifest.version,
        dir,
        relativeDir: path.relative(root, dir).split(path.sep).join('/'),
        manifest,
      };
    })
    .filter((pkg) => pkg.manifest.private !== true)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The repository root: two levels above this file. */
export const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');
