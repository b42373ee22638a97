// The `npm i …` lines that install the packed tarballs: one per published package, with the
// tarball of every workspace package it depends on and the peers it needs from the registry.
// `./run.sh pack` prints them, the README shows them for /tmp/recourse-packages, and the
// consumer test runs them as they are (tests/consumer/install-lines.test.ts checks the README).
import path from 'node:path';
import type { WorkspacePackage } from './workspace-packages.js';

export interface InstallLine {
  /** The package the line is for. */
  name: string;
  /** What it is for, as the README says it. */
  label: string;
  /** The command, ready to paste. */
  command: string;
}

/** The folder the README's lines name (what `./run.sh pack /tmp/recourse-packages` fills). */
export const readmeTarballFolder = '/tmp/recourse-packages';

const labels: Record<string, string> = {
  '@recourse/ai-sdk': 'Vercel AI SDK agents',
  '@recourse/openai': 'official OpenAI SDK agents',
  '@recourse/openai-agents': 'OpenAI Agents SDK agents',
  '@recourse/langchain': 'LangChain agents (createAgent)',
  '@recourse/mcp': 'any MCP client: the recourse-mcp proxy',
  '@recourse/dbos': 'AI SDK agents in DBOS workflows',
  '@recourse/restate': 'AI SDK agents in Restate handlers',
  '@recourse/store-redis': 'optional: a ledger in Redis',
  '@recourse/store-postgres': 'optional: a ledger in PostgreSQL',
  '@recourse/testing': 'optional: a scripted model for offline tests',
};

/** Installed as development dependencies. */
const devOnly = new Set(['@recourse/testing']);

export function tarballName(pkg: Pick<WorkspacePackage, 'name' | 'version'>): string {
  return `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.version}.tgz`;
}

/** The workspace packages `pkg` needs at run time, itself included, dependencies first. */
function withWorkspaceDependencies(
  pkg: WorkspacePackage,
  byName: ReadonlyMap<string, WorkspacePackage>,
  seen = new Set<string>(),
): WorkspacePackage[] {
  if (seen.has(pkg.name)) return [];
  seen.add(pkg.name);
  const dependencies = Object.keys(pkg.manifest.dependencies ?? {})
    .map((name) => byName.get(name))
    .filter((dependency) => dependency !== undefined);
  return [
    ...dependencies.flatMap((dependency) => withWorkspaceDependencies(dependency, byName, seen)),
    pkg,
  ];
}

/** The peers a user installs: required ones, not our own packages. */
function requiredPeers(pkg: WorkspacePackage): string[] {
  const optional = (pkg.manifest.peerDependenciesMeta ?? {}) as Record<
    string,
    { optional?: boolean }
  >;
  return Object.keys(pkg.manifest.peerDependencies ?? {}).filter(
    (name) => !name.startsWith('@recourse/') && optional[name]?.optional !== true,
  );
}

/**
 * One line per published package that depends on the core or is installed on its own (the
 * core itself comes with every adapter line). `folder` is where the tarballs are.
 */
export function installLines(packages: readonly WorkspacePackage[], folder: string): InstallLine[] {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  return packages
    .filter((pkg) => pkg.name !== '@recourse/core')
    .map((pkg) => {
      const tarballs = withWorkspaceDependencies(pkg, byName).map((needed) =>
        path.posix.join(folder, tarballName(needed)),
      );
      const flags = devOnly.has(pkg.name) ? ['-D'] : [];
      return {
        name: pkg.name,
        label: labels[pkg.name] ?? pkg.name,
        command: ['npm', 'i', ...flags, ...tarballs, ...requiredPeers(pkg)].join(' '),
      };
    });
}

/** The lines as a shell block: each command with what it is for. */
export function formatInstallLines(lines: readonly InstallLine[]): string {
  return lines.map((line) => `# ${line.label}\n${line.command}`).join('\n');
}
