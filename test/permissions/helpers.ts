import {
  compileRules,
  evaluatePolicy,
  type PermissionMode,
  type PolicyCall,
  type PolicyConfig,
  type PolicyResult,
  type RuleLists,
  type SessionRule,
  type ShellParser,
} from 'happy-session/permissions';

/** Builds a policy from readable parts and evaluates one call against it. */
export function judge(
  shell: ShellParser,
  setup: RuleLists & {
    mode?: PermissionMode;
    sessionRules?: readonly SessionRule[];
    workspaceRoot?: string;
    modeTable?: PolicyConfig['modeTable'];
  },
  call: PolicyCall,
): PolicyResult {
  const rules = compileRules(setup);
  if (!rules.ok) throw rules.error;
  return evaluatePolicy(
    {
      mode: setup.mode ?? 'default',
      rules: rules.value,
      shell,
      ...(setup.sessionRules ? { sessionRules: setup.sessionRules } : {}),
      ...(setup.workspaceRoot ? { workspaceRoot: setup.workspaceRoot } : {}),
      ...(setup.modeTable ? { modeTable: setup.modeTable } : {}),
    },
    call,
  );
}

/** A Bash call. */
export function bash(command: string): PolicyCall {
  return { toolName: 'Bash', args: { command } };
}
