// The model the example talks to when no ANTHROPIC_API_KEY is given: scripted, on 127.0.0.1. To
// each prompt it thinks, says what it will do, and appends the prompt to notes.txt with a shell
// command (which writes, so Claude Code asks, and the app's buttons answer); given the command's
// result, it says it is done. Claude Code's own side requests (titles and the like) get a word.
import { lastUserText, resultText, startScriptedModel, toolResults } from './scriptedModel.js';
import type { MessagesRequest, ScriptedModel, ScriptedReply } from './scriptedModel.js';

/** The demo's answer to one request. */
export function demoReply(request: MessagesRequest): ScriptedReply {
  if (!request.tools?.length) return { content: [{ type: 'text', text: 'Notes' }] };
  const results = toolResults(request);
  if (results.length > 0) {
    const failed = results.some((r) => r.is_error);
    const said = results.map(resultText).join('\n').trim();
    return {
      content: [{ type: 'text', text: failed ? `That did not run: ${said}` : 'Noted in notes.txt.' }],
    };
  }
  const prompt = lastUserText(request).split('\n').at(-1)!.trim();
  return {
    content: [
      { type: 'thinking', thinking: `The user said "${prompt}". I keep it in notes.txt.` },
      { type: 'text', text: 'I will add that to notes.txt.' },
      {
        type: 'tool_use',
        name: 'Bash',
        input: { command: `echo ${shellQuote(prompt)} >> notes.txt`, description: 'Add to notes.txt' },
      },
    ],
  };
}

/** Starts the demo model. */
export function startDemoModel(): Promise<ScriptedModel> {
  return startScriptedModel(demoReply);
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
