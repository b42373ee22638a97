import { shellResources, urlResource } from '@recourse/langchain';
import { callService } from '@recourse/testing';
import { tool } from 'langchain';
import { z } from 'zod';

/** A GitHub API read and a shell: two routes to one repository. `executed` records each run. */
export function githubTools(executed: string[]) {
  return [
    tool(
      async ({ repo, path }) => {
        executed.push(`github_api ${repo}`);
        return callService('GET', `https://api.github.test/repos/${repo}/contents/${path}`);
      },
      {
        name: 'github_api',
        description: 'Read a file from a GitHub repository',
        schema: z.object({ repo: z.string(), path: z.string() }),
      },
    ),
    tool(
      async ({ command }) => {
        executed.push(`shell ${command}`);
        return 'ok';
      },
      {
        name: 'shell',
        description: 'Run a shell command',
        schema: z.object({ command: z.string() }),
      },
    ),
  ];
}

/** What each route reaches: the repository's URL, by the API or by git over SSH. */
export const githubPolicies = {
  github_api: {
    sideEffects: false,
    resource: (i: { repo: string }) => urlResource(`https://github.com/${i.repo}`),
  },
  shell: { sideEffects: true, resource: (i: { command: string }) => shellResources(i.command) },
};
