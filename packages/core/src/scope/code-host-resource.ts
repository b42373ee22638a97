import { joinResource, lowerSegment, stripGitSuffix } from './canonical-resource.js';

/** Owner and repository names on these hosts are case-insensitive. */
function repository(host: string, owner: string, repo: string, rest: readonly string[]): string {
  const name = stripGitSuffix(lowerSegment(repo));
  return joinResource(`https://${host}/${lowerSegment(owner)}/${name}`, rest);
}

function github(segments: readonly string[]): string {
  const [owner, repo, ...rest] = segments;
  if (owner === undefined) return 'https://github.com';
  if (repo === undefined) return `https://github.com/${lowerSegment(owner)}`;
  return repository('github.com', owner, repo, rest);
}

/**
 * API endpoints that read or change the account, never a repository: the signed-in user's
 * own profile, e-mails, keys and followers, a user's or an organisation's public profile,
 * and the API's own metadata. Their canonical home is `https://{host}/-/…`: `-` is never an
 * owner name, so a denial of one repository does not cover them, and a denial of one of
 * them closes only that endpoint; a denial of the whole host still covers them.
 */
const accountEndpoint =
  /^(?:user(?:\/(?:emails|public_emails|keys|gpg_keys|ssh_signing_keys|followers|following|blocks|social_accounts)(?:\/[^/]+)?)?|users\/[^/]+|orgs\/[^/]+|rate_limit|meta|emojis|octocat|zen|versions)$/i;

function account(host: string, segments: readonly string[]): string | undefined {
  const path = segments.join('/');
  return accountEndpoint.test(path) ? joinResource(`https://${host}/-`, segments) : undefined;
}

/** api.github.com: repository routes map to the repository, account routes to the account;
 * anything else (search, graphql, /repositories/{id}, /user/repos, ...) may reach any
 * repository, so it maps to all of GitHub. */
function githubApi(segments: readonly string[]): string {
  const [kind, owner, repo, ...rest] = segments;
  if (kind === 'repos' && owner !== undefined && repo !== undefined) {
    return repository('github.com', owner, repo, rest);
  }
  const own = account('github.com', segments.map(lowerSegment));
  if (own !== undefined) return own;
  if ((kind === 'orgs' || kind === 'users' || kind === 'repos') && owner !== undefined) {
    return `https://github.com/${lowerSegment(owner)}`;
  }
  return 'https://github.com';
}

function gitlab(segments: readonly string[]): string {
  if (segments[0] === 'api') {
    // /api/v4/projects/{owner%2Frepo}/... — a numeric id could be any project.
    const [, , kind, id, ...rest] = segments;
    const own = account('gitlab.com', segments.slice(2).map(lowerSegment));
    if (own !== undefined) return own;
    if (kind !== 'projects' || id === undefined) return 'https://gitlab.com';
    const path = id.split(/%2F/i).filter(Boolean);
    if (path.length < 2 || /^\d+$/.test(id)) return 'https://gitlab.com';
    return joinResource('https://gitlab.com', [...lowerProject(path), ...rest]);
  }
  // Groups nest: the project path is everything before the `/-/` separator.
  const dash = segments.indexOf('-');
  const project = dash === -1 ? segments : segments.slice(0, dash);
  const rest = dash === -1 ? [] : segments.slice(dash);
  return joinResource('https://gitlab.com', [...lowerProject(project), ...rest]);
}

function lowerProject(path: readonly string[]): string[] {
  return path.map((segment, index) => {
    const name = lowerSegment(segment);
    return index === path.length - 1 ? stripGitSuffix(name) : name;
  });
}

function bitbucket(segments: readonly string[]): string {
  const [owner, repo, ...rest] = segments;
  if (owner === undefined) return 'https://bitbucket.org';
  if (repo === undefined) return `https://bitbucket.org/${lowerSegment(owner)}`;
  return repository('bitbucket.org', owner, repo, rest);
}

function bitbucketApi(segments: readonly string[]): string {
  const [, kind, owner, repo, ...rest] = segments;
  if (kind === 'repositories' && owner !== undefined && repo !== undefined) {
    return repository('bitbucket.org', owner, repo, rest);
  }
  return account('bitbucket.org', segments.slice(1).map(lowerSegment)) ?? 'https://bitbucket.org';
}

const hosts: Record<string, (segments: readonly string[]) => string> = {
  'github.com': github,
  'www.github.com': github,
  'api.github.com': githubApi,
  'raw.githubusercontent.com': (s) =>
    s.length < 2 ? github(s) : github([s[0]!, s[1]!, 'raw', ...s.slice(2)]),
  'codeload.github.com': github,
  'uploads.github.com': (s) => (s[0] === 'repos' ? github(s.slice(1)) : 'https://github.com'),
  'gitlab.com': gitlab,
  'www.gitlab.com': gitlab,
  'bitbucket.org': bitbucket,
  'www.bitbucket.org': bitbucket,
  'api.bitbucket.org': bitbucketApi,
};

/** The canonical resource of a path on a known code host, or undefined for other hosts. */
export function codeHostResource(host: string, segments: readonly string[]): string | undefined {
  return hosts[host]?.(segments);
}

export function isCodeHost(host: string): boolean {
  return host in hosts;
}
