/**
 * Files that steer where other programs go or what they run: git's config and hooks
 * (`insteadOf` rewrites a URL, a hook runs on the next commit), psql's startup file and
 * service file, ssh's, kubectl's, curl's, wget's, aws's and gh's configuration, and the
 * shells' startup files. A command that reaches one may change the reach of every later
 * command, which no check of that later command can see: it reaches `*`, reading as much
 * as writing (a resource does not say which).
 */
const steering = [
  /\/\.gitconfig$/,
  /\/\.config\/git(\/|$)/,
  /\/\.git\/(config|hooks(\/|$))/,
  /^\/etc\/gitconfig$/,
  /\/\.psqlrc(-[^/]*)?$/,
  /(^|\/)\.?pg_service\.conf$/,
  /\/\.ssh\/config$/,
  /^\/etc\/ssh\/ssh_config(\.d(\/|$)|$)/,
  /\/\.kube(\/|$)/,
  /\/[._]curlrc$/,
  /\/\.wgetrc$/,
  /^\/etc\/wgetrc$/,
  /\/\.aws(\/|$)/,
  /\/\.config\/gh(\/|$)/,
  /\/\.(bashrc|bash_profile|bash_login|profile|zshrc|zshenv|zprofile)$/,
  /^\/etc\/(profile|bash\.bashrc|environment)$/,
];

/** Whether a `file://` resource is, or lies below, a file that steers other programs. */
export function isSteeringFile(resource: string): boolean {
  if (!resource.startsWith('file://')) return false;
  const path = resource.slice('file://'.length);
  return steering.some((pattern) => pattern.test(path));
}

/**
 * Variables that move those files elsewhere (or name a startup script), so that a command
 * run with one may read a steering file written under another name.
 */
export const steeringVariables = [
  'XDG_CONFIG_HOME',
  'PSQLRC',
  'PGSYSCONFDIR',
  'CURL_HOME',
  'WGETRC',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'GH_CONFIG_DIR',
  'BASH_ENV',
  'ZDOTDIR',
];
