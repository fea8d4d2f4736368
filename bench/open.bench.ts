/**
 * `sessions.open-by-id`: how long `connect({ sessionId })` takes on an account with 10,000
 * sessions against one with a single session, on the same server in the same run (issue 36,
 * item 5). The session is looked up in one request (docs/wire.md §4.1), so the size of the
 * account's list should not show: target ratio ≤ 2.
 *
 * Two fresh accounts on the bench's server (the embedded relay in a child process, or
 * `HAPPY_SERVER_URL`): one holds a single session; the other {@link FILLER} sessions plus the one
 * opened, made in the middle of the list (the oldest would be the worst case of a walk by pages,
 * the middle a typical one; a direct lookup does not care). Each account's session is opened
 * {@link SAMPLES} times, alternating, after {@link WARMUP} opens of each; every open connects the
 * socket, reads the session's stream and closes again without archiving. Figures are medians.
 *
 * Run alone: `npx tsx bench/open.bench.ts` (`BENCH_OPEN_SESSIONS` for another account size).
 */
import { randomBytes } from '../packages/sdk/src/crypto/random.js';
import { mintToken } from '../packages/sdk/src/transport/authToken.js';
import type { Credentials } from '../packages/sdk/src/transport/credentials.js';
import { HappyHttp } from '../packages/sdk/src/transport/httpClient.js';
import { installNodePlatform } from '../packages/sdk/src/transport/nodePlatform.js';
import { createSessionRecord } from '../packages/sdk/src/transport/sessionRecord.js';
import { connect } from '../packages/sdk/src/session/connect.js';
import { runIfMain } from './lib/main.js';
import { benchServer } from './lib/server.js';
import { percentile, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const FILLER = Number(process.env.BENCH_OPEN_SESSIONS ?? 10_000);
const SAMPLES = 15;
const WARMUP = 3;
/** Filler sessions created at once. */
const CREATE_CONCURRENCY = 16;
const NAME = 'sessions.open-by-id';

interface Account {
  readonly http: HappyHttp;
  readonly credentials: Credentials;
}

/** Runs the open-by-id benchmark. */
export default async function run(): Promise<BenchResult[]> {
  installNodePlatform();
  const server = await benchServer();
  try {
    const small = await freshAccount(server.url);
    const large = await freshAccount(server.url);
    const alone = (await createSessionRecord(small.http, small.credentials, { title: 'alone' })).id;
    await fill(large, Math.floor(FILLER / 2));
    const target = (await createSessionRecord(large.http, large.credentials, { title: 'among many' })).id;
    await fill(large, FILLER - Math.floor(FILLER / 2));

    const open = async (account: Account, sessionId: string): Promise<number> => {
      const started = performance.now();
      const session = await connect({
        server: server.url,
        credentials: account.credentials,
        sessionId,
        shutdownSignals: false,
        archiveOnClose: false,
      });
      const took = performance.now() - started;
      await session.close();
      return took;
    };
    for (let i = 0; i < WARMUP; i++) {
      await open(small, alone);
      await open(large, target);
    }
    const one: number[] = [];
    const many: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      one.push(await open(small, alone));
      many.push(await open(large, target));
    }
    const value = percentile(many, 50);
    const baseline = percentile(one, 50);
    const ratio = round(value / baseline);
    console.log(
      `${NAME}: ratio ${ratio} (${round(value)} ms with ${FILLER + 1} sessions, ${round(baseline)} ms with 1)`,
    );
    return [
      {
        name: NAME,
        value: round(value),
        baseline: round(baseline),
        ratio,
        unit: 'ms',
        target: 'ratio <= 2',
        note: `median connect({ sessionId }) until the session is returned, ${SAMPLES} opens each after ${WARMUP} warm-up; value = on an account with ${FILLER + 1} sessions (the one opened made in the middle); baseline = on an account with 1; server: ${server.label}`,
      },
    ];
  } finally {
    await server.close();
  }
}

async function freshAccount(url: string): Promise<Account> {
  const masterSecret = randomBytes(32);
  const token = await mintToken(new HappyHttp({ serverUrl: url }), masterSecret);
  return {
    http: new HappyHttp({ serverUrl: url, token }),
    credentials: { kind: 'master', masterSecret, token },
  };
}

/** Creates `count` sessions on the account, a few at a time (their metadata is never read). */
async function fill(account: Account, count: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      await account.http.request('POST', '/v1/sessions', {
        tag: globalThis.crypto.randomUUID(),
        metadata: 'filler',
        agentState: null,
        dataEncryptionKey: null,
      });
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
}

await runIfMain(import.meta.url, run);
