// Stand-ins for `urlResource` / `shellResources` from @recourse/core, in the same
// canonical form (`https://github.com/{owner}/{repo}`), until the core exports them.

export function githubRepo(repo: string): string {
  return `https://github.com/${repo.toLowerCase()}`;
}

/** What a shell line reaches: the GitHub repositories it names, else everything. */
export function shellReach(command: string): string[] {
  const repos = [...command.matchAll(/github\.com[/:]([\w.-]+\/[\w.-]+?)(?:\.git)?(?=[\s/]|$)/gi)];
  return repos.length ? repos.map((m) => githubRepo(m[1]!)) : ['*'];
}
