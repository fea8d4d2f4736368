// Run: npx tsx examples/ai-sdk/index.ts
// With AI_GATEWAY_API_KEY set, a real model through the AI SDK's gateway (AI_MODEL, default
// openai/gpt-5-mini); without it, the scripted model. Uses HAPPY_SERVER_URL and the credentials in
// HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI. Then, from the app: `run ls -la`, `stop`.
import type { LanguageModel } from 'ai';
import { connect } from 'happy-session/node';
import { runAgent } from './agent.js';
import { scriptedModel } from './scriptedModel.js';

const model: LanguageModel = process.env.AI_GATEWAY_API_KEY
  ? (process.env.AI_MODEL ?? 'openai/gpt-5-mini')
  : scriptedModel();
const session = await connect({ title: 'AI SDK example' });
console.log(`session ${session.id}: send prompts from the app; "stop" ends the agent`);
await runAgent(session, { model, cwd: process.cwd() });
await session.close({ archive: false });
