// A stranger's first hour, automated: the packed tarballs installed into a project outside
// the workspace with the README's own `npm i` lines (scripts/release/install-lines.ts, which
// the README is checked against), no overrides, typechecked with `moduleResolution: nodenext`, `strict`
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
import { installLines, tarballName } from '../../scripts/release/install-lines.js';
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
// What the consumer project has of its own, beside what the README's lines install.
const ownPackages = new Set([
  '@ai-sdk/openai',
  '@types/json-schema',
  '@types/node',
  '@types/pg',
  'typescript',
]);
const timings: [string, number][] = [];

function step<T>(label: string, action: () => T): T {
  const started = performance.now();
  console.log(`consumer: ${label}`);
  const result = action();
  timings.push([label, (performance.now() - started) / 1000]);
  return result;
}

/** The user's plain environment: no --conditions from NODE_OPTIONS. */
function plainEnvironment(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _, ...env } = process.env;
  return env;
}

function sh(command: string, args: string[], cwd: string): void {
  execFileSync(command, args, { cwd, env: plainEnvironment(), stdio: 'inherit' });
}

/** A README line, run as written. npm's quiet settings come from the environment. */
function runLine(line: string, cwd: string): void {
  execFileSync('sh', ['-c', line], {
    cwd,
    stdio: 'inherit',
    env: {
      ...plainEnvironment(),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_prefer_offline: 'true',
      npm_config_loglevel: 'error',
    },
  });
}

const packages = listPublishedPackages(repositoryRoot);
const tarballDir = values.tarballs
  ? path.resolve(values.tarballs)
  : step('pack every package', () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'recourse-tarballs-'));
      packPackages(repositoryRoot, dir, (line) => console.log(`consumer: ${line}`));
      return dir;
    });
for (const pkg of packages) {
  const file = tarballName(pkg);
  if (!readdirSync(tarballDir).includes(file)) throw new Error(`${file} is not in ${tarballDir}`);
}

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
    // The project's own choices (a provider package, TypeScript and types); recourse and
    // what it needs come from the README's lines below, never from this file.
    const own = (ranges: Record<string, string> = {}) =>
      Object.fromEntries(Object.entries(ranges).filter(([name]) => ownPackages.has(name)));
    writeFileSync(
      path.join(project, 'package.json'),
      `${JSON.stringify(
        {
          name: 'recourse-consumer',
          private: true,
          type: 'module',
          dependencies: own(manifest.dependencies),
          devDependencies: own(manifest.devDependencies),
        },
        null,
        2,
      )}\n`,
    );
  });

  for (const line of installLines(packages, tarballDir)) {
    step(`${line.label}: ${line.command.replaceAll(`${tarballDir}/`, '')}`, () =>
      runLine(line.command, project),
    );
  }

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
