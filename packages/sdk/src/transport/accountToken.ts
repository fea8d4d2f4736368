/**
 * The account's bearer token as every request and socket of one `connect()` or `Account` reads it
 * at the moment it is sent. With a master secret it can be renewed: when the server refuses it
 * (401), a new one is minted from the secret once, saved where the old one came from, and the
 * request is sent again (docs/transport.md, "Tokens").
 */
export class AccountToken {
  private current: string;
  private renewing: Promise<string> | undefined;

  /**
   * @param initial the token to send first
   * @param renew mints (and saves) a new token; absent when the credentials hold no master secret
   */
  constructor(
    initial: string,
    private readonly renew?: () => Promise<string>,
  ) {
    this.current = initial;
  }

  /** The token to send now. */
  get value(): string {
    return this.current;
  }

  /** True when a refused token can be replaced (the credentials hold the master secret). */
  get renewable(): boolean {
    return this.renew !== undefined;
  }

  /**
   * The token to try after `refused` got a 401: the current one when another request renewed it
   * meanwhile, else a freshly minted one (minted once for all the requests refused at the same
   * time); undefined when there is nothing new to try.
   */
  async after(refused: string): Promise<string | undefined> {
    if (refused !== this.current) return this.current;
    if (!this.renew) return undefined;
    this.renewing ??= this.renew()
      .then((token) => (this.current = token))
      .finally(() => (this.renewing = undefined));
    const fresh = await this.renewing;
    return fresh === refused ? undefined : fresh;
  }
}
