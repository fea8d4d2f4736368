// Run: npx tsx examples/claude-agent/index.ts [--cwd <folder Claude Code works in>]
// A Claude Code agent in a Happy session: send prompts from the app, approve its tool calls there.
// With ANTHROPIC_API_KEY set it uses the real model; without, a scripted model on 127.0.0.1 (it
// notes each prompt in notes.txt with a shell command). CLAUDE_CODE_EXECUTABLE names the Claude Code
// binary when the SDK's own is not installed (in this repository: `npm run -s claude-code`).
// Uses HAPPY_SERVER_URL and the credentials in HAPPY_HOME_DIR (default ~/.happy), like the Happy CLI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { connect } from 'happy-session/node';
import { isolatedEnv, runClaudeAgent } from './agent.js';
import { startDemoModel } from './demoModel.js';

const { values } = parseArgs({ options: { cwd: { type: 'string' } } });
const apiKey = process.env.ANTHROPIC_API_KEY;
const demo = apiKey ? undefined : await startDemoModel();
const binary = process.env.CLAUDE_CODE_EXECUTABLE;
// The scripted model's Claude Code gets a home folder of its own, removed at the end.
const home = demo ? mkdtempSync(join(tmpdir(), 'claude-agent-home-')) : undefined;

const session = await connect({ title: 'Claude agent example' });
console.log(`session ${session.id}: send prompts from the app (${demo ? 'scripted model' : 'real model'})`);

await runClaudeAgent(session, {
  cwd: resolve(values.cwd ?? process.cwd()),
  claude: {
    ...(binary ? { pathToClaudeCodeExecutable: binary } : {}),
    // The scripted model: Claude Code with a home of its own, talking to it and nothing else.
    ...(demo
      ? {
          env: isolatedEnv(home!, { baseUrl: demo.url, apiKey: 'offline' }),
        }
      : {}),
  },
  signal: session.signal,
  onTurn: (result) => console.log(`turn ${result.status}${result.result ? `: ${result.result}` : ''}`),
});
await demo?.close();
if (home) rmSync(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
