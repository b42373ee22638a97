import { execFileSync, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { PackedPackage } from './pack-packages.js';
import type { PackageManifest } from './workspace-packages.js';

export interface TarballReport {
  name: string;
  tarball: string;
  files: number;
  bytes: number;
  problems: string[];
}

const required = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'];
const testOnly = /(\.test\.|\.test-d\.|\.test-harness\.|\.bench\.|(^|\/)test-support\/)/;
const metadata = ['description', 'keywords', 'homepage', 'repository', 'license', 'engines'];

/** What a user installs, checked: contents, manifest, then publint and attw on the tarball itself. */
export function checkTarball(root: string, pkg: PackedPackage): TarballReport {
  const problems: string[] = [];
  const entries = execFileSync('tar', ['-tzf', pkg.tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '' && !line.endsWith('/'))
    .map((line) => line.replace(/^package\//, ''));

  for (const file of required) {
    if (!entries.includes(file)) problems.push(`ships no ${file} (add one to ${pkg.relativeDir})`);
  }
  for (const file of entries) {
    if (required.includes(file)) continue;
    if (!file.startsWith('dist/'))
      problems.push(`ships ${file}: only dist/ and ${required.join(', ')}`);
    else if (testOnly.test(file)) problems.push(`ships the test-only file ${file}`);
    else if (file.endsWith('.tsbuildinfo')) problems.push(`ships ${file}`);
    else if (file.endsWith('.ts') && !file.endsWith('.d.ts'))
      problems.push(`ships TypeScript source ${file}`);
  }

  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', pkg.tarball, 'package/package.json'], { encoding: 'utf8' }),
  ) as PackageManifest;
  problems.push(...checkManifest(pkg, manifest));
  problems.push(...checkBins(pkg, manifest, entries));
  problems.push(...run(root, 'publint', ['--strict', pkg.tarball]));
  problems.push(
    ...run(root, 'attw', ['--profile', 'esm-only', '--format', 'table-flipped', pkg.tarball]),
  );

  return {
    name: pkg.name,
    tarball: pkg.tarball,
    files: entries.length,
    bytes: statSync(pkg.tarball).size,
    problems,
  };
}

/** Every `bin` is shipped and starts with a node shebang, so npm's link of it runs. */
function checkBins(pkg: PackedPackage, manifest: PackageManifest, entries: string[]): string[] {
  const bins = typeof manifest.bin === 'string' ? { [pkg.name]: manifest.bin } : manifest.bin;
  const problems: string[] = [];
  for (const [name, file] of Object.entries((bins ?? {}) as Record<string, string>)) {
    const shipped = file.replace(/^\.\//, '');
    if (!entries.includes(shipped)) {
      problems.push(`bin ${name} is ${file}, which the tarball does not ship`);
      continue;
    }
    const head = execFileSync('tar', ['-xzOf', pkg.tarball, `package/${shipped}`], {
      encoding: 'utf8',
    }).split('\n', 1)[0];
    if (head !== '#!/usr/bin/env node') {
      problems.push(`bin ${name} (${file}) does not start with #!/usr/bin/env node`);
    }
  }
  return problems;
}

function checkManifest(pkg: PackedPackage, manifest: PackageManifest): string[] {
  const problems: string[] = [];
  for (const field of metadata) {
    const value = manifest[field];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) {
      problems.push(`package.json has no ${field}`);
    }
  }
  const repository = manifest.repository as { directory?: string } | undefined;
  if (repository?.directory !== pkg.relativeDir) {
    problems.push(`repository.directory is ${repository?.directory}, not ${pkg.relativeDir}`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
    const ranges = (manifest[field] ?? {}) as Record<string, string>;
    for (const [name, range] of Object.entries(ranges)) {
      if (range.startsWith('workspace:')) problems.push(`${field}.${name} is still ${range}`);
    }
  }
  // The workspace's exports point the `recourse-source` condition at ./src, which is not
  // shipped; publishConfig.exports must drop it and keep every subpath.
  const published = JSON.stringify(manifest.exports ?? {});
  if (published.includes('recourse-source')) {
    problems.push('exports still has the recourse-source condition (set publishConfig.exports)');
  }
  const workspaceSubpaths = Object.keys(pkg.manifest.exports ?? {}).sort();
  const publishedSubpaths = Object.keys(manifest.exports ?? {}).sort();
  if (workspaceSubpaths.join() !== publishedSubpaths.join()) {
    problems.push(
      `publishes the subpaths ${publishedSubpaths.join(', ')}, the workspace has ${workspaceSubpaths.join(', ')}`,
    );
  }
  return problems;
}

/** Runs a linter from the workspace's node_modules/.bin; its output is the problem when it fails. */
function run(root: string, tool: string, args: string[]): string[] {
  const result = spawnSync(path.join(root, 'node_modules', '.bin', tool), args, {
    encoding: 'utf8',
  });
  if (result.status === 0) return [];
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  return [`${tool} failed:\n${output}`];
}
