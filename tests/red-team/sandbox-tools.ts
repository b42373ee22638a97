import {
  callContext,
  httpResource,
  kubernetesResource,
  pathResource,
  postgresResource,
  resourceCovers,
  s3Resource,
  shellResources,
  type ToolPolicy,
  urlResource,
} from '@recourse/core';
import { z } from 'zod';
import { fetchText } from './sandbox-downstream.js';

/**
 * Where the agent runs: relative paths in shell commands and file reads resolve here. What
 * the deployer knows of the agent's environment: kubectl's current context is `default`,
 * namespace `default`. Nothing is said of `GH_HOST` (gh's default, github.com, applies:
 * `useSandboxServer` clears it from this process) nor of `PGHOST` or `PGPORT`, so psql
 * without `-h` reaches `*`.
 */
export const shellOptions = {
  cwd: '/work/app',
  home: '/home/agent',
  kubernetes: { context: 'default', namespace: 'default' },
};
export const fileOptions = { cwd: '/srv/data', home: '/home/agent' };
const deniedRepository = 'https://github.com/acme/secret';
const deniedTable = 'aws://dynamodb/eu-west-1/payroll';

/** One sandbox tool, independent of the SDK: a schema, a policy and an implementation. */
export interface SandboxTool {
  description: string;
  inputSchema: z.ZodObject;
  // biome-ignore lint/suspicious/noExplicitAny: each tool reads its own input shape
  execute: (input: any) => Promise<string>;
  // biome-ignore lint/suspicious/noExplicitAny: matches ToolPolicy's own default
  resource?: ((input: any) => string | readonly string[]) | undefined;
}

/** `EACCES` as `node:fs` throws it (the suite runs as root, so it cannot provoke a real one). */
function permissionDenied(path: string): Error {
  return Object.assign(new Error(`EACCES: permission denied, open '${path}'`), {
    errno: -13,
    code: 'EACCES',
    syscall: 'open',
    path,
  });
}

/**
 * gh's refusal as the shell tool reports it: the command failed, and the tool passes on the
 * HTTP status gh printed (`(HTTP 403)`), as a shell tool that reads gh's error line would.
 */
function ghForbidden(command: string): Error {
  return Object.assign(
    new Error(`Command failed: ${command}\ngh: Resource not accessible by integration (HTTP 403)`),
    { exitCode: 1, status: 403 },
  );
}

/** The aws CLI's refusal as the shell tool reports it: its error line and the HTTP status. */
function awsAccessDenied(command: string): Error {
  return Object.assign(
    new Error(
      `Command failed: ${command}\nAn error occurred (AccessDeniedException) when calling the GetItem operation: not authorized to perform dynamodb:GetItem (HTTP 403)`,
    ),
    { exitCode: 254, status: 403 },
  );
}

/** A `pg` `DatabaseError` for a missing privilege (its `name` is "error"). */
function insufficientPrivilege(database: string): Error {
  return Object.assign(new Error(`permission denied for database ${database}`), {
    name: 'error',
    severity: 'ERROR',
    code: '42501',
  });
}

/**
 * Every tool records the id of each call whose `execute` ran, so a test can assert that a
 * blocked route never executed. Denied: the repository acme/secret (to the REST API and to
 * gh in the shell), the file /srv/data/secrets/prod.env, the bucket acme-private, the
 * namespace prod, the database billing on db.internal, https://10.0.0.5/admin, and the
 * DynamoDB table payroll in eu-west-1 (to the aws CLI).
 */
export function createSandboxTools() {
  const executed: string[] = [];
  const ran = (detail: string) => {
    executed.push(callContext().toolCallId);
    return detail;
  };
  const tools = {
    github_api: {
      description: 'Read a file of a GitHub repository through the REST API',
      inputSchema: z.object({ repo: z.string(), path: z.string() }),
      resource: (i: { repo: string }) => urlResource(`https://github.com/${i.repo}`),
      execute: async (i: { repo: string; path: string }) => {
        ran('github_api');
        return fetchText(`https://api.github.com/repos/${i.repo}/contents/${i.path}`);
      },
    },
    shell: {
      description: 'Run a shell command in /work/app',
      inputSchema: z.object({ command: z.string() }),
      resource: (i: { command: string }) => shellResources(i.command, shellOptions),
      execute: async (i: { command: string }) => {
        ran('shell');
        const reached = shellResources(i.command, shellOptions);
        if (reached.some((r) => r !== '*' && resourceCovers(deniedRepository, r)))
          throw ghForbidden(i.command);
        if (reached.some((r) => r !== '*' && resourceCovers(deniedTable, r)))
          throw awsAccessDenied(i.command);
        return `$ ${i.command}\nok`;
      },
    },
    http_get: {
      description: 'GET a URL',
      inputSchema: z.object({ url: z.string() }),
      resource: (i: { url: string }) => urlResource(i.url),
      execute: async (i: { url: string }) => {
        ran('http_get');
        return /^https:/i.test(i.url) ? fetchText(i.url) : 'ok';
      },
    },
    http_request: {
      description: 'Send an HTTP request',
      inputSchema: z.object({ method: z.string(), url: z.string(), body: z.string().optional() }),
      resource: (i: { method: string; url: string }) => httpResource(i.method, i.url),
      execute: async (i: { method: string; url: string; body?: string | undefined }) => {
        ran('http_request');
        return fetchText(i.url, { method: i.method, body: i.body ?? null });
      },
    },
    git_clone: {
      description: 'Clone a git repository',
      inputSchema: z.object({ url: z.string() }),
      resource: (i: { url: string }) => urlResource(i.url),
      execute: async () => ran('cloned'),
    },
    read_file: {
      description: 'Read a file; relative paths resolve in /srv/data',
      inputSchema: z.object({ path: z.string() }),
      resource: (i: { path: string }) => pathResource(i.path, fileOptions),
      execute: async (i: { path: string }) => {
        ran('read_file');
        if (pathResource(i.path, fileOptions).startsWith('file:///srv/data/secrets/'))
          throw permissionDenied(i.path);
        return 'file contents';
      },
    },
    s3_get_object: {
      description: 'Read an object from S3',
      inputSchema: z.object({ bucket: z.string(), key: z.string() }),
      // Permissions are granted per bucket, so the bucket is what a denial closes.
      resource: (i: { bucket: string }) => s3Resource(i.bucket),
      execute: async (i: { bucket: string; key: string }) => {
        ran('s3_get_object');
        return fetchText(`https://${i.bucket}.s3.amazonaws.com/${i.key}`);
      },
    },
    k8s_list: {
      description: 'List Kubernetes objects of a kind in a namespace',
      inputSchema: z.object({ namespace: z.string(), kind: z.string() }),
      resource: (i: { namespace: string }) => kubernetesResource({ namespace: i.namespace }),
      execute: async (i: { namespace: string; kind: string }) => {
        ran('k8s_list');
        return fetchText(`https://k8s.internal/api/v1/namespaces/${i.namespace}/${i.kind}`);
      },
    },
    sql_query: {
      description: 'Run a read-only SQL query',
      inputSchema: z.object({ host: z.string(), database: z.string(), sql: z.string() }),
      resource: (i: { host: string; database: string }) =>
        postgresResource({ host: i.host, database: i.database }),
      execute: async (i: { host: string; database: string }) => {
        ran('sql_query');
        if (i.host === 'db.internal' && i.database === 'billing')
          throw insufficientPrivilege(i.database);
        return '[{"?column?":1}]';
      },
    },
    read_notes: {
      description: 'Read the team notes (declares no resource)',
      inputSchema: z.object({}),
      execute: async () => ran('notes'),
    },
  } satisfies Record<string, SandboxTool>;
  return { tools, executed };
}

export type SandboxToolName = keyof ReturnType<typeof createSandboxTools>['tools'];

/** The recovery policies: each tool's `resource` function, nothing else. */
export function sandboxPolicies(tools: Record<string, SandboxTool>): Record<string, ToolPolicy> {
  const policies: Record<string, ToolPolicy> = {};
  for (const [name, spec] of Object.entries(tools)) {
    if (spec.resource) policies[name] = { resource: spec.resource };
  }
  return policies;
}
