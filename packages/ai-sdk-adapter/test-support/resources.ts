import { shellResources, urlResource } from '@recourse/core';

export function githubRepo(repo: string): string {
  return urlResource(`https://github.com/${repo}`);
}

/** What a shell line reaches, as the scope guard sees it. */
export function shellReach(command: string): string[] {
  return shellResources(command);
}
