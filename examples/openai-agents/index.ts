// Run: npx tsx examples/openai-agents/index.ts
// With OPENAI_API_KEY set, the framework's OpenAI model; without it, the scripted model. Uses
// HAPPY_SERVER_URL and the credentials in HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI.
// Then, from the app: `run ls -la`, `stop`. A run waiting for an answer is saved in
// .openai-agents-run.json and resumed when the program starts again (with HAPPY_SESSION_ID, on the
// same session).
import { setTracingDisabled } from '@openai/agents';
import { connect } from 'happy-session/node';
import { runAgent } from './agent.js';
import { scriptedModelProvider } from './scriptedModel.js';

setTracingDisabled(true);
const sessionId = process.env.HAPPY_SESSION_ID;
const session = await connect({ title: 'OpenAI Agents example', ...(sessionId ? { sessionId } : {}) });
console.log(`session ${session.id}: send prompts from the app; "stop" ends the agent`);
await runAgent(session, {
  ...(process.env.OPENAI_API_KEY ? {} : { modelProvider: scriptedModelProvider() }),
  cwd: process.cwd(),
  statePath: '.openai-agents-run.json',
});
await session.close({ archive: false });
