// A stranger's first hour, automated: the packed tarballs installed with plain npm into a
// project outside the workspace, typechecked with `moduleResolution: nodenext`, `strict`
// and no `skipLibCheck`, then agents run with plain `node` (no custom conditions) against
// a scripted provider. The README quick starts are compiled there too.
//
// Usage: pnpm test:consumer [--tarballs DIR] [--keep]
//   --tarballs DIR  use the tarballs in DIR (from `pnpm release:dry DIR`) instead of packing
//   --keep          leave the temp project in place to look at
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packPackages } from '../../scripts/release/pack-packages.js';
import {
  listPublishedPackages,
  type PackageManifest,
  repositoryRoot,
} from '../../scripts/release/workspace-packages.js';
import { extractSnippets } from './readme-snippets.js';

const { values } = parseArgs({
  options: { tarballs: { type: 'string' }, keep: { type: 'boolean', default: false } },
});
const here = import.meta.dirname;
const timings: [string, number][] = [];

function step<T>(label: string, action: () => T): T {
  const started = performance.now();
  console.log(`consumer: ${label}`);
  const result = action();
  timings.push([label, (performance.now() - started) / 1000]);
  return result;
}

/** A child process with the user's plain environment: no --conditions from NODE_OPTIONS. */
function sh(command: string, args: string[], cwd: string): void {
  const { NODE_OPTIONS: _, ...env } = process.env;
  execFileSync(command, args, { cwd, env, stdio: 'inherit' });
}

const packages = listPublishedPackages(repositoryRoot);
const tarballDir = values.tarballs
  ? path.resolve(values.tarballs)
  : step('pack every package', () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'recourse-tarballs-'));
      packPackages(repositoryRoot, dir);
      return dir;
    });
const tarballs = new Map(
  packages.map((pkg) => {
    const file = `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
    if (!readdirSync(tarballDir).includes(file)) throw new Error(`${file} is not in ${tarballDir}`);
    return [pkg.name, path.join(tarballDir, file)];
  }),
);

const project = mkdtempSync(path.join(os.tmpdir(), 'recourse-consumer-'));
try {
  step('write the project', () => {
    cpSync(path.join(here, 'project'), project, { recursive: true });
    for (const snippet of extractSnippets(repositoryRoot)) {
      writeFileSync(path.join(project, 'src', snippet.file), snippet.code);
    }
    const manifest = JSON.parse(
      readFileSync(path.join(here, 'package.json'), 'utf8'),
    ) as PackageManifest;
    const fromRegistry = (ranges: Record<string, string> = {}) =>
      Object.fromEntries(
        Object.entries(ranges).filter(([, range]) => !range.startsWith('workspace:')),
      );
    const local = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
    writeFileSync(
      path.join(project, 'package.json'),
      `${JSON.stringify(
        {
          name: 'recourse-consumer',
          private: true,
          type: 'module',
          dependencies: { ...fromRegistry(manifest.dependencies), ...local },
          devDependencies: fromRegistry(manifest.devDependencies),
          // The adapters' own `@recourse/core` dependency must be the tarball too, never a
          // registry copy of the same name.
          overrides: Object.fromEntries([...tarballs.keys()].map((name) => [name, `$${name}`])),
        },
        null,
        2,
      )}\n`,
    );
  });

  step('npm install (the tarballs, and the rest from the registry)', () =>
    sh(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
      project,
    ),
  );

  step('the agents need nothing but their adapter', () => {
    for (const file of readdirSync(path.join(project, 'src'))) {
      if (!/^(ai-sdk-agent|openai-agent|readme-)/.test(file)) continue;
      const source = readFileSync(path.join(project, 'src', file), 'utf8');
      if (/from '@recourse\/core'/.test(source)) {
        throw new Error(`${file} imports @recourse/core: the adapter should export what it needs`);
      }
    }
  });

  step('tsc (nodenext, strict, no skipLibCheck)', () =>
    sh(
      process.execPath,
      [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', '.'],
      project,
    ),
  );

  // A package's bin, as npm linked it: executable, and it runs.
  step('recourse-mcp --help', () =>
    sh(path.join(project, 'node_modules', '.bin', 'recourse-mcp'), ['--help'], project),
  );

  for (const program of ['ai-sdk-agent', 'openai-agent', 'stores']) {
    step(`node out/${program}.js`, () => sh(process.execPath, [`out/${program}.js`], project));
  }
} finally {
  if (values.keep) console.log(`consumer: the project is in ${project}`);
  else rmSync(project, { recursive: true, force: true });
  if (!values.tarballs) rmSync(tarballDir, { recursive: true, force: true });
}

console.log('consumer: passed');
for (const [label, seconds] of timings)
  console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${label}`);
