export interface ShellResourcesOptions {
  /** The directory the command runs in. Default `process.cwd()`. */
  cwd?: string | undefined;
  /** What `~` and `$HOME` expand to. Default the `HOME` environment variable. */
  home?: string | undefined;
  /**
   * Variables of the environment the command runs in (e.g. `{ PGHOST: 'db' }`); `''` says a
   * variable is unset. A program whose target a variable names (`PGHOST`, `PGPORT`,
   * `KUBECONFIG`, …) and that is neither here nor set on the line reaches `*`; gh talks to
   * github.com unless `GH_HOST` (here, on the line or in this process's environment),
   * `--hostname` or a GitHub Enterprise remote in `gitRemotes` says otherwise.
   */
  env?: Readonly<Record<string, string>> | undefined;
  /**
   * Git remote names → URLs of the working copy (`git push origin` reaches `origin`; `git
   * pull` and `gh` without `--repo` reach every remote). Without them a remote given by
   * name, or left to the branch, reaches `*`.
   */
  gitRemotes?: Readonly<Record<string, string>> | undefined;
  /**
   * kubectl's current context and its namespace, as the kubeconfig says. Without them a
   * kubectl command that names no `--context` reaches `*`, and one that names no `-n`
   * reaches its whole context.
   */
  kubernetes?: { context: string; namespace?: string | undefined } | undefined;
}
