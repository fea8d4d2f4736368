import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Tokens the SDK minted from an `agent.key` that already held another token, one per server, in
 * `<home>/happy-session/tokens.json` (mode 0600 in a 0700 directory). The key file itself is left
 * as Happy's tools wrote it: its token belongs to the server that issued it, and replacing it with
 * a token of another server (a local relay, say) would lock Happy's own CLI out of its account
 * (docs/transport.md, "Tokens").
 */
export class ServerTokens {
  private readonly file: string;

  constructor(private readonly home: string) {
    this.file = join(home, 'happy-session', 'tokens.json');
  }

  /** The token saved for `serverUrl`, if any. A missing or unreadable file holds none. */
  get(serverUrl: string): string | undefined {
    const token = this.read()[serverUrl];
    return typeof token === 'string' && token.length > 0 ? token : undefined;
  }

  /** Saves `token` for `serverUrl`, atomically (a reader never sees half a file). */
  set(serverUrl: string, token: string): void {
    const dir = join(this.home, 'happy-session');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const body = JSON.stringify({ ...this.read(), [serverUrl]: token });
    const temporary = join(dir, `.tokens.${randomBytes(6).toString('hex')}.tmp`);
    try {
      writeFileSync(temporary, body, { mode: 0o600, flag: 'wx' });
      chmodSync(temporary, 0o600);
      renameSync(temporary, this.file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  }

  private read(): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  }
}
