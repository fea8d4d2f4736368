import { beforeAll, describe, expect, it } from 'vitest';
import {
  compileRules,
  evaluatePolicy,
  loadShellParser,
  type PermissionMode,
  type PolicyResult,
  type ShellParser,
} from 'happy-session/permissions';
import { judge } from '../helpers.js';

/**
 * Issue 35, item 7: a tool that asks the user is one however its name is spelled
 * (docs/permissions-policy.md, "Precedence: deny > ask > mode > allow", step 2). No mode and no allow rule may answer for it:
 * it asks in bypassPermissions and acceptEdits even under an allow rule of its own spelling, and is
 * denied in dontAsk, where nobody would be asked.
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const SPELLINGS = [
  'askUserQuestion',
  'ask_user_question',
  'ask-user-question',
  'ASK_USER_QUESTION',
  'askuserquestion',
  'Ask User Question',
  'Ask.User.Question',
  'ＡｓｋＵｓｅｒＱｕｅｓｔｉｏｎ',
  'Ask\u200bUserQuestion',
  'mcp__claude__AskUserQuestion',
  'mcp__form__ask_user_question',
  'tools/askUserQuestion',
  'agent:ask_user_question',
  'exitPlanMode',
  'EXIT-PLAN-MODE',
  'exit plan mode',
  'mcp__plan__exit_plan_mode',
  // Issue 35 red-team set: a version or separator after the name, a combining mark on a letter.
  'ExitPlanMode.v1',
  'ask_user_question:v2',
  'tools/ExitPlanMode/',
  'exit_plan_mode@1',
  'AskUserQuestion\u0301',
  'A\u0308skUserQuestion',
];

const NEVER_ASKED: PermissionMode[] = ['dontAsk'];
const ALLOWING: PermissionMode[] = ['bypassPermissions', 'acceptEdits', 'default'];

describe('interaction tools by any spelling', () => {
  it.each(SPELLINGS)(
    '%s asks in bypassPermissions, acceptEdits and default, even when allowed by name',
    (toolName) => {
      for (const mode of ALLOWING) {
        const result = judge(shell, { mode, allow: allowRule(toolName) }, { toolName, args: {} });
        expect(result.verdict).toBe('ask');
        // A name with an invisible character is asked about first for that (tool_name).
        expect(['interaction', 'tool_name']).toContain(result.reason.kind);
      }
    },
  );

  it.each(SPELLINGS)('%s is denied in dontAsk', (toolName) => {
    for (const mode of NEVER_ASKED)
      expect(judge(shell, { mode, allow: allowRule(toolName) }, { toolName, args: {} }).verdict).toBe('deny');
  });

  it.each(['ConfirmPurchase', 'confirm-purchase', 'mcp__shop__confirmPurchase'])(
    "%s: a host's own interaction tool (confirm_purchase) is matched the same way",
    (toolName) => {
      expect(withHostList(toolName, ['confirm_purchase'])).toMatchObject({
        verdict: 'ask',
        reason: { kind: 'interaction' },
      });
    },
  );
});

describe('positive controls: other tools are not taken for interaction tools', () => {
  it.each([
    ['AskUserQuestionnaire', 'bypassPermissions'],
    ['UserQuestionLog', 'bypassPermissions'],
    ['mcp__ask__Read', 'bypassPermissions'],
    ['Read', 'bypassPermissions'],
    ['PlanModeExit', 'bypassPermissions'],
    ['mcp__questions__list', 'bypassPermissions'],
    ['ExitPlanModeHelp.v1', 'bypassPermissions'],
  ] as const)('%s is allowed in %s', (toolName, mode) => {
    expect(judge(shell, { mode }, { toolName, args: {} }).verdict).toBe('allow');
  });

  it('an allow rule still allows an ordinary tool by its name in default mode', () => {
    expect(judge(shell, { allow: ['ask_later'] }, { toolName: 'ask_later', args: {} }).verdict).toBe('allow');
  });

  it("without the host's list, ConfirmPurchase is an ordinary tool; with it, ConfirmPurchases is still one", () => {
    expect(withHostList('ConfirmPurchase', undefined).verdict).toBe('allow');
    expect(withHostList('ConfirmPurchases', ['confirm_purchase']).verdict).toBe('allow');
  });
});

/** An allow rule naming the tool, where its name can be a rule's (`tools/x` and `a b` cannot). */
function allowRule(toolName: string): string[] {
  return compileRules({ allow: [toolName] }).ok ? [toolName] : [];
}

/** `toolName` judged in bypassPermissions under an allow rule of its own name and the host's list. */
function withHostList(toolName: string, requiresInteraction: string[] | undefined): PolicyResult {
  const rules = compileRules({ allow: [toolName] });
  if (!rules.ok) throw rules.error;
  return evaluatePolicy(
    {
      mode: 'bypassPermissions',
      rules: rules.value,
      shell,
      ...(requiresInteraction ? { requiresInteraction } : {}),
    },
    { toolName, args: {} },
  );
}
