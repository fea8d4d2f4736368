// A restart-safe agent: kill it while a deploy waits for approval, approve from the viewer or
// `happy-session answer`, start it again with the session id: the deploy runs once.
//   npx tsx examples/restart-safe/index.ts            # a new session; prints its id
//   npx tsx examples/restart-safe/index.ts <session>  # takes over that session
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { connect } from 'happy-session/node';
import { runRestartSafeAgent } from './agent.js';

const sessionId = process.argv[2];
const session = await connect({
  title: 'Restart-safe agent',
  ...(sessionId ? { sessionId } : {}),
  archiveOnClose: false,
});
process.stdout.write(`session ${session.id}\n`);
const interrupted = session.interrupted;
if (interrupted.calls.length > 0 || interrupted.questions.length > 0)
  process.stdout.write(
    `took over ${interrupted.calls.length} calls, ${interrupted.questions.length} questions\n`,
  );
await runRestartSafeAgent(session, {
  ledger: process.env.DEPLOY_LEDGER ?? join(tmpdir(), 'restart-safe-deploys.log'),
  signal: session.signal,
});
