/**
 * A path or URL with shell braces or globs (`/{secret,x}/y`, `/sec*`) may reach any
 * sibling: cut it at the first segment that has one, keeping its parent.
 */
export function widenGlob(text: string): string {
  const at = text.search(/[{*?[]/);
  if (at === -1) return text;
  // `?` starts a query in URLs; only a `?` before any `://` path counts as a glob there.
  if (text.charAt(at) === '?' && /^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const brace = text.slice(0, at).search(/[{*[]/);
    if (brace === -1) return text;
  }
  const slash = text.lastIndexOf('/', at);
  if (slash <= 0) return text.startsWith('/') ? '/' : '';
  // Never cut into a URL's authority: `https://h{a,b}` widens to everything.
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/$/i;
  if (scheme.test(text.slice(0, slash + 1))) return '*';
  return text.slice(0, slash);
}
