/**
 * The relay's SQLite schema. It mirrors the parts of the real server's data model that an agent
 * and a viewer touch (docs/wire.md §1, §4, §5, §8). Every payload column holds exactly the
 * ciphertext string (or bytes) a client sent; the relay never decrypts anything.
 *
 * Times are Unix epoch milliseconds. Bump {@link SCHEMA_VERSION} and add a step to
 * {@link MIGRATIONS} when the schema changes, so an existing data dir is upgraded in place.
 */
export const SCHEMA_VERSION = 3;

/** Migration steps; index `i` upgrades a database from version `i` to `i + 1`. */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE relay_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    public_key TEXT NOT NULL UNIQUE,   -- Ed25519 public key, hex
    seq INTEGER NOT NULL DEFAULT 0,    -- per-account counter of update events
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );

  CREATE TABLE terminal_auth_requests (
    id TEXT PRIMARY KEY,
    public_key TEXT NOT NULL UNIQUE,   -- X25519 public key, hex
    supports_v2 INTEGER NOT NULL,
    response TEXT,                     -- b64 box bundle written by the approving app
    response_account_id TEXT REFERENCES accounts(id),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );

  CREATE TABLE account_auth_requests (
    id TEXT PRIMARY KEY,
    public_key TEXT NOT NULL UNIQUE,
    response TEXT,
    response_account_id TEXT REFERENCES accounts(id),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );

  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    tag TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    metadata TEXT NOT NULL,
    metadata_version INTEGER NOT NULL DEFAULT 0,
    agent_state TEXT,
    agent_state_version INTEGER NOT NULL DEFAULT 0,
    data_encryption_key BLOB,
    seq INTEGER NOT NULL DEFAULT 0,    -- last allocated message seq
    active INTEGER NOT NULL DEFAULT 1,
    last_active_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (account_id, tag)
  );
  CREATE INDEX sessions_by_account_updated ON sessions (account_id, updated_at DESC);

  CREATE TABLE session_messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    local_id TEXT,
    content TEXT NOT NULL,             -- the b64 ciphertext, served back as {t:'encrypted', c}
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (session_id, local_id)
  );
  CREATE INDEX session_messages_by_seq ON session_messages (session_id, seq);

  CREATE TABLE push_events (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    data TEXT,                         -- JSON, as sent
    result TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );

  CREATE TABLE usage_reports (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    session_id TEXT,
    key TEXT NOT NULL,
    data TEXT NOT NULL,                -- JSON {tokens, cost}
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX usage_reports_unique ON usage_reports (account_id, IFNULL(session_id, ''), key);

  -- Attachment blobs of an in-memory relay; a relay with a data dir keeps them as files instead.
  CREATE TABLE attachments (
    session_id TEXT NOT NULL,
    file TEXT NOT NULL,
    data BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, file)
  );
  `,
  `
  -- Upload names issued by request-upload (docs/relay.md, "Attachments"): a PUT is taken only for
  -- an issued name, once, before it expires; stored sizes count against the account's quota.
  CREATE TABLE attachment_uploads (
    session_id TEXT NOT NULL,
    file TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    state TEXT NOT NULL,               -- issued | uploading | stored
    size INTEGER,                      -- bytes stored, once stored
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, file)
  );
  CREATE INDEX attachment_uploads_by_account ON attachment_uploads (account_id, state);
  `,
  `
  -- GET /v2/sessions by id descending, and a session opened by id through its cursor
  -- (docs/wire.md §4.1): an index walk from the cursor, not a sort of the account's sessions.
  CREATE INDEX sessions_by_account_id ON sessions (account_id, id DESC);
  `,
];
