/**
 * Every file a path argument may name (docs/permissions-policy.md, "How a path is judged"): the
 * text as written, and for a `file:` URL also the absolute path it names, decoded
 * (`file:///etc/passwd`, `file://localhost/etc/%70asswd` → `/etc/passwd`), since a tool may take
 * either. `undefined` when what it names cannot be told: a `file:` URL of another host, one that
 * does not parse or decodes to a NUL, and a URL of any other scheme (`http://…`, `smb://…`), which
 * a tool may fetch from anywhere. The policy judges every reading; `undefined` asks.
 */
export function pathReadings(value: string): readonly string[] | undefined {
  if (/^file:/i.test(value)) {
    let url: URL;
    let path: string;
    try {
      url = new URL(value);
      path = decodeURIComponent(url.pathname);
    } catch {
      return undefined;
    }
    if ((url.host !== '' && url.host !== 'localhost') || path.includes('\0')) return undefined;
    return [value, path];
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined;
  return [value];
}
