import type { SdkError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { toolNameProblem } from '../protocol/toolName.js';
import { readBashLine, unsafeCharacters, type GrammarCommand, type GrammarLine } from './bashGrammar.js';
import {
  CHANGES_DIRECTORY,
  commandLineOf,
  isRelativePath,
  stringsCarriedBy,
  judgeCwd,
  type CwdConcern,
  type CwdJudgement,
} from './commandLine.js';
import { grantProblem, isInputWord, marksNoWord, withoutGlobalOptions, type Marked } from './commandTable.js';
import { confinementConcern, plantsCode } from './confinement.js';
import { baseName, executedCommands, wrapped, type ExecutedCommands } from './executedCommands.js';
import {
  DEFAULT_MODE_TABLE,
  modeCell,
  type ModeCell,
  type ModeTableOverrides,
  type PermissionMode,
} from './modes.js';
import {
  allowRuleWords,
  firstStringArg,
  matchCallRule,
  matchCommandText,
  matchWords,
  ruleWords,
  type RuleMatch,
} from './ruleMatch.js';
import { formatRule, parseRule, ruleCoversWholeTool, type ParsedRule, type RuleErrorCode } from './rules.js';
import { sandboxModeTable, sandboxVerdict, type SandboxPolicy } from './sandboxPolicy.js';
import type { SessionRule } from './sessionRules.js';
import { MAX_SHELL_COMMAND_LENGTH, type ShellCommand, type ShellParser, type ShellSplit } from './shell.js';
import type { ShellWord } from './shellWords.js';
import {
  canonicalToolName,
  classifyTool,
  DEFAULT_REQUIRES_INTERACTION,
  isInteractionTool,
  SEEN_KINDS,
  toolKindsOf,
  type ToolKind,
} from './toolKinds.js';
import type { PathConcern } from './workspace.js';

/** Which list a matching rule came from. */
export type RuleList = 'deny' | 'ask' | 'allow' | 'session-allow' | 'session-deny';

/** A rule ready for evaluation: its canonical text, its parsed form and its list. */
export interface CompiledRule {
  readonly text: string;
  readonly rule: ParsedRule;
  readonly list: RuleList;
  /** The session rule's id, for rules from the session store. */
  readonly id?: string;
}

/** The host's static rules, validated by {@link compileRules}. */
export interface CompiledRules {
  readonly deny: readonly CompiledRule[];
  readonly ask: readonly CompiledRule[];
  readonly allow: readonly CompiledRule[];
}

/** Rule strings as a host writes them. */
export interface RuleLists {
  readonly deny?: readonly string[];
  readonly ask?: readonly string[];
  readonly allow?: readonly string[];
}

/**
 * Parses the host's rule strings once, at configuration. The first invalid rule is returned as a
 * typed `permissions.invalid_rule` error naming it.
 */
export function compileRules(lists: RuleLists): Result<CompiledRules, SdkError<RuleErrorCode>> {
  const out: Record<'deny' | 'ask' | 'allow', CompiledRule[]> = { deny: [], ask: [], allow: [] };
  for (const list of ['deny', 'ask', 'allow'] as const) {
    for (const text of lists[list] ?? []) {
      const parsed = parseRule(text);
      if (!parsed.ok) return err(parsed.error);
      out[list].push(Object.freeze({ text: formatRule(parsed.value), rule: parsed.value, list }));
    }
  }
  return ok(Object.freeze(out));
}

/** Everything {@link evaluatePolicy} decides by. Plain data; the gate rebuilds it when the mode or the session rules change. */
export interface PolicyConfig {
  readonly mode: PermissionMode;
  readonly rules: CompiledRules;
  /** Rules granted in this session ({@link SessionRuleStore.listRules}). */
  readonly sessionRules?: readonly SessionRule[];
  /** Splits Bash commands ({@link loadShellParser}). */
  readonly shell: ShellParser;
  /** Host retargeting of mode cells. */
  readonly modeTable?: ModeTableOverrides;
  /** Tools that always need the user; defaults to {@link DEFAULT_REQUIRES_INTERACTION}. */
  readonly requiresInteraction?: readonly string[];
  /** Absolute posix path that relative path rules are resolved against. */
  readonly workspaceRoot?: string;
  /** The sandbox the host runs its shell calls in, if any ({@link sandboxVerdict}). */
  readonly sandbox?: SandboxPolicy;
}

/** The call being judged. `kind` is the adapter's tool kind, if it supplies one. */
export interface PolicyCall {
  readonly toolName: string;
  readonly kind?: string;
  readonly args?: unknown;
  /** The tool asks the user something (AskUserQuestion-like); no rule or mode may answer for it. */
  readonly requiresUserInteraction?: boolean;
  /**
   * The arguments are a person's edit (`updatedInput`) of a call they were asked about: nobody
   * will be asked about them again, so a deny rule that cannot be checked on them denies, as
   * where the mode never asks (docs/permissions-policy.md, "Edited arguments are judged").
   */
  readonly edited?: boolean;
}

/** One rule that took part in a decision. */
export interface RuleRef {
  readonly rule: string;
  readonly list: RuleList;
  readonly id?: string;
}

/** Why a Bash command could not be allowed by rules, when that is why the user is asked. */
export type ShellConcern =
  | { readonly kind: 'unparsable'; readonly reason: string }
  | { readonly kind: 'hazard'; readonly hazards: readonly string[] }
  /** What the command runs cannot be known before it runs (a computed command name, `eval`, …). */
  | { readonly kind: 'unchecked'; readonly reason: string }
  /** The line is not in the grammar the policy reads exactly ({@link readBashLine}). */
  | { readonly kind: 'outside_grammar'; readonly reason: string }
  /** The call's `cwd` is not a string, cannot be judged, or is outside the workspace root. */
  | { readonly kind: 'cwd'; readonly reason: CwdConcern };

/**
 * Why the policy decided as it did.
 *
 * - `rule`: a rule matched (`rules` lists every rule used when each part of a compound command
 *   was allowed by a different one);
 * - `mode`: the mode's cell for the tool kind decided, or `dontAsk` refused what would be asked;
 * - `interaction`: the tool needs the user whatever the mode;
 * - `undecidable`: a deny or ask rule is about this tool but could not be checked (unparsable
 *   command, computed command name, path outside the workspace, malformed URL): the user is
 *   asked, or, where the mode never asks and a deny rule is among them, the call is denied;
 * - `confinement`: an edit or a read that the mode or a rule would allow is outside the
 *   workspace, an edit of a protected path, or there is no workspace to be inside, so the user is
 *   asked ({@link PathConcern});
 * - `sandbox`: a shell call that will run in the host's sandbox is allowed, or asks because it
 *   asks to run outside it (`leaving`) (docs/sandbox.md, "The policy and the sandbox");
 * - `default`: nothing decided, so the user is asked (`shell` says why rules could not help);
 * - `tool_name`: the tool name cannot be read exactly (`toolNameProblem`: blanks around it,
 *   control, invisible or Unicode space characters), so no rule or mode may decide it: the user
 *   is asked, or the call is denied where the mode never asks.
 */
export type PolicyReason =
  | ({ readonly kind: 'rule'; readonly rules?: readonly RuleRef[] } & RuleRef)
  | { readonly kind: 'mode'; readonly mode: PermissionMode }
  | { readonly kind: 'interaction' }
  | { readonly kind: 'undecidable'; readonly rules: readonly RuleRef[]; readonly shell?: ShellConcern }
  | { readonly kind: 'confinement'; readonly concern: PathConcern }
  | { readonly kind: 'sandbox'; readonly leaving: boolean }
  | { readonly kind: 'default'; readonly shell?: ShellConcern }
  | { readonly kind: 'tool_name'; readonly problem: string };

/** The policy's answer for one call. */
export interface PolicyResult {
  readonly verdict: 'allow' | 'deny' | 'ask';
  readonly reason: PolicyReason;
  /** The kind the call was judged as (the strictest of {@link toolKindsOf}). */
  readonly toolKind: ToolKind;
}

/**
 * Decides a call without asking anyone (docs/permissions-requirements.md R4.1), or says that the
 * user must be asked. Never throws: an internal failure asks the user. What it applies, in order:
 * docs/permissions-policy.md, "Precedence: deny > ask > mode > allow", "Edits stay in the
 * workspace", "Reads stay in the workspace", "The grammar a line must be in to be allowed" and
 * "Deny rules see the real command".
 */
export function evaluatePolicy(config: PolicyConfig, call: PolicyCall): PolicyResult {
  let toolKind: ToolKind = 'other';
  try {
    toolKind = classifyTool(call.toolName, call.kind);
    return decide(config, call);
  } catch {
    return { verdict: 'ask', reason: { kind: 'default' }, toolKind };
  }
}

/**
 * One line naming why a call was decided without the user, for the model and the
 * `tool-call-end` error, e.g. `Denied by the deny rule Bash(rm:*).`
 */
export function describePolicyResult(result: PolicyResult): string {
  const verb =
    result.verdict === 'allow' ? 'Allowed' : result.verdict === 'deny' ? 'Denied' : 'Needs approval';
  const r = result.reason;
  switch (r.kind) {
    case 'rule': {
      const all = r.rules ?? [r];
      const names = all.map((x) => `${listName(x.list)} rule ${x.rule}`).join(', ');
      return `${verb} by the ${names}.`;
    }
    case 'mode':
      return `${verb} by permission mode ${r.mode}.`;
    case 'interaction':
      return `${verb}: this tool always asks the user.`;
    case 'undecidable': {
      const why =
        r.shell?.kind === 'unchecked' || r.shell?.kind === 'outside_grammar' ? ` (${r.shell.reason})` : '';
      return `${verb}: could not check ${r.rules.map((x) => `${listName(x.list)} rule ${x.rule}`).join(', ')}${why}.`;
    }
    case 'confinement':
      return `${verb}: ${CONCERN_TEXT[r.concern]}.`;
    case 'sandbox':
      return r.leaving
        ? `${verb}: the call asks to run outside the sandbox.`
        : `${verb} to run sandboxed: writes only inside the workspace, no network beyond the allowed hosts.`;
    case 'default':
      return `${verb}: no rule or mode decides this call.`;
    case 'tool_name':
      return `${verb}: ${r.problem}.`;
  }
}

const CONCERN_TEXT: Readonly<Record<PathConcern, string>> = {
  no_workspace: 'files are only edited or read automatically inside a workspace root, and none is set',
  no_path: 'the call names no file the gate can check',
  outside_workspace: 'the path is outside the workspace',
  home_workspace: 'the workspace root is the home directory or above it',
  hard_link: 'the file has more than one hard link',
  protected_path:
    'the file is a protected path (git internals, agent, CI, editor, shell or tool configuration, secrets)',
};

function listName(list: RuleList): string {
  return list === 'session-allow' ? 'session allow' : list === 'session-deny' ? 'session deny' : list;
}

/**
 * A command line to judge: a Bash call's, or an execute-kind tool's (`foreign`, judged by deny and
 * ask rules only). Split by tree-sitter (for deny and ask rules, which look at everything it
 * finds) and read by the grammar (the one reader that may let a line be allowed); what each of
 * its simple commands runs is computed on demand.
 */
interface ShellSubject {
  readonly line: string | undefined;
  readonly split: ShellSplit | undefined;
  readonly grammar: GrammarLine | undefined;
  readonly shell: ShellParser;
  readonly executed: Map<ShellCommand | GrammarCommand, ExecutedCommands>;
  readonly foreign: boolean;
  readonly cwd: CwdJudgement;
}

interface Subject {
  readonly toolName: string;
  readonly args: unknown;
  /** Present for Bash calls. */
  readonly shell?: ShellSubject;
}

type Found = { readonly matched: CompiledRule } | { readonly unknown: readonly CompiledRule[] } | undefined;

function decide(config: PolicyConfig, call: PolicyCall): PolicyResult {
  const toolName = canonicalToolName(call.toolName);
  const kinds = toolKindsOf(call.toolName, call.kind);
  const subject = subjectOf(toolName, call.args, kinds, config);
  const session = compileSession(config.sessionRules ?? []);
  const modeTable = sandboxModeTable(config.sandbox, config.modeTable);
  const { cell, kind: toolKind } = strictestCell({ ...config, modeTable }, kinds);
  const neverAsks = DEFAULT_MODE_TABLE[config.mode].unresolved === 'deny';
  const askOr = (reason: PolicyReason): PolicyResult =>
    neverAsks
      ? { verdict: 'deny', reason: { kind: 'mode', mode: config.mode }, toolKind }
      : { verdict: 'ask', reason, toolKind };
  // Never a rule matched by a name the reader sees differently (`Bash ` is not `Bash`).
  const nameProblem = toolNameProblem(call.toolName);
  if (nameProblem !== undefined) return askOr({ kind: 'tool_name', problem: nameProblem });

  // The sandbox would run the call unasked, or the person already saw it (an edit they made).
  const nobodyAsked = (): boolean =>
    call.edited === true ||
    (cell === 'ask' && sandboxVerdict(config.sandbox, config.mode, toolName, call.args) === 'allow');
  // The rules about Bash command lines, and what a call they cannot be checked on gets where
  // nobody would be asked: denied under a deny rule, asked (denied where nobody can be) under an ask rule.
  const bashDenies = commandRules([...config.rules.deny, ...session.deny]);
  const bashAsks = commandRules(config.rules.ask);
  const guarded = bashDenies.length + bashAsks.length > 0;
  const uncheckable = (shell: ShellConcern): PolicyResult | undefined => {
    if (bashDenies.length > 0)
      return {
        verdict: 'deny',
        reason: { kind: 'undecidable', rules: bashDenies.map(refOf), shell },
        toolKind,
      };
    if (bashAsks.length > 0) return askOr({ kind: 'undecidable', rules: bashAsks.map(refOf), shell });
    return undefined;
  };

  const denyFound = find([...config.rules.deny, ...session.deny], subject, config);
  if (denyFound && 'matched' in denyFound)
    return { verdict: 'deny', reason: ruleReason(denyFound.matched), toolKind };

  const askFound = find(config.rules.ask, subject, config);
  if (askFound && 'matched' in askFound) return askOr(ruleReason(askFound.matched));

  // An execute tool may run any string it carries, not only its command line.
  const carried = carriedLineFound(call.args, toolName, kinds, bashDenies, bashAsks, config);
  if (carried === 'too_many') {
    const reason: PolicyReason = { kind: 'undecidable', rules: [...bashDenies, ...bashAsks].map(refOf) };
    if (bashDenies.length > 0 && (cell === 'allow' || neverAsks || nobodyAsked()))
      return { verdict: 'deny', reason, toolKind };
    return askOr(reason);
  }
  if (carried?.deny) return { verdict: 'deny', reason: ruleReason(carried.deny), toolKind };
  if (carried?.ask) return askOr(ruleReason(carried.ask));

  const uncheckedDeny = denyFound ? denyFound.unknown : [];
  const unknown = [...uncheckedDeny, ...(askFound && 'unknown' in askFound ? askFound.unknown : [])];
  // A session deny rule that no longer parses cannot be honoured, so do not guess.
  if (unknown.length > 0 || session.broken) {
    const concern = shellConcernOf(subject).shell ?? codeConcernOf(subject);
    const reason: PolicyReason = {
      kind: 'undecidable',
      rules: unknown.map(refOf),
      ...(concern ? { shell: concern } : {}),
    };
    // Where nobody would be asked (the mode allows, the sandbox would run it, or the person
    // already answered with this edit), a deny rule that cannot be checked must not let it run.
    if ((uncheckedDeny.length > 0 || session.broken) && (cell === 'allow' || nobodyAsked())) {
      return { verdict: 'deny', reason, toolKind };
    }
    // A mode that refuses the call refuses it whatever the rules could not tell (plan).
    if (cell === 'deny') return { verdict: 'deny', reason: { kind: 'mode', mode: config.mode }, toolKind };
    return askOr(reason);
  }

  // A line the grammar does not read exactly cannot be checked against the deny or ask rules
  // either: where nobody would be asked, it does not run under a deny rule, and asks (or is
  // denied where nobody can be asked) under an ask rule.
  const inexact = inexactLine(subject);
  if (inexact && (cell === 'allow' || neverAsks || nobodyAsked())) {
    const refused = uncheckable(inexact);
    if (refused) return refused;
  }

  // An edit where a program finds code it runs (`.git/config`, `~/.gitconfig`) would let a later
  // line the rules allow (`git status`) run what they deny: where nobody would be asked, it is
  // judged like a line the rules cannot be checked on.
  // (Elsewhere a mode that allows edits asks for a protected path anyway: "Edits stay in the workspace".)
  const unconfined = cell === 'allow' && config.mode === 'bypassPermissions';
  if (
    guarded &&
    (unconfined || neverAsks || nobodyAsked()) &&
    plantsCode(toolName, kinds, call.args, config.workspaceRoot)
  ) {
    const refused = uncheckable({
      kind: 'unchecked',
      reason: 'the edit writes where a program finds code it runs (a protected path)',
    });
    if (refused) return refused;
  }

  const interaction = config.requiresInteraction ?? DEFAULT_REQUIRES_INTERACTION;
  if (call.requiresUserInteraction === true || isInteractionTool(call.toolName, interaction)) {
    return askOr({ kind: 'interaction' });
  }

  const confined = (): PathConcern | undefined =>
    confinementConcern(toolName, kinds, call.args, config.workspaceRoot);

  if (cell === 'allow' && config.mode !== 'bypassPermissions') {
    const concern = confined();
    if (concern) return askOr({ kind: 'confinement', concern });
    // A mode allows a Bash line only when the grammar reads it exactly, from a judged cwd.
    const shellConcern = subject.shell?.foreign === false ? (cwdConcernOf(subject) ?? inexact) : undefined;
    if (shellConcern) return askOr({ kind: 'default', shell: shellConcern });
  }
  if (cell !== 'ask') return { verdict: cell, reason: { kind: 'mode', mode: config.mode }, toolKind };
  const sandboxed = sandboxVerdict(
    config.sandbox,
    config.mode,
    toolName,
    call.args,
    guarded ? { split: subject.shell?.split } : undefined,
  );
  // While rules about commands are in force, only a line the grammar reads exactly runs unasked.
  if (sandboxed === 'allow' && !(guarded && inexactLine(subject)))
    return { verdict: 'allow', reason: { kind: 'sandbox', leaving: false }, toolKind };
  if (sandboxed === 'leave') return askOr({ kind: 'sandbox', leaving: true });

  // A whole-tool session grant was made for calls of kinds the user saw whole (SEEN_KINDS).
  const seenWhole = kinds.every((k) => SEEN_KINDS.includes(k));
  const sessionAllow = seenWhole ? session.allow : session.allow.filter((r) => r.rule.type !== 'tool');
  const allowed = findAllow([...config.rules.allow, ...sessionAllow], subject, config);
  if (allowed.length > 0) {
    const concern = confined();
    if (concern) return askOr({ kind: 'confinement', concern });
    const [first, ...rest] = allowed;
    return {
      verdict: 'allow',
      reason: { kind: 'rule', ...refOf(first!), ...(rest.length > 0 ? { rules: allowed.map(refOf) } : {}) },
      toolKind,
    };
  }
  return askOr({ kind: 'default', ...shellConcernOf(subject) });
}

const CELL_ORDER: Readonly<Record<ModeCell, number>> = { deny: 0, ask: 1, allow: 2 };

/** The strictest mode cell among the call's kinds (deny < ask < allow), and the kind it is for. */
function strictestCell(config: PolicyConfig, kinds: readonly ToolKind[]): { cell: ModeCell; kind: ToolKind } {
  let best: { cell: ModeCell; kind: ToolKind } | undefined;
  for (const kind of kinds) {
    const cell = modeCell(config.mode, kind, config.modeTable);
    if (best === undefined || CELL_ORDER[cell] < CELL_ORDER[best.cell]) best = { cell, kind };
  }
  return best ?? { cell: modeCell(config.mode, 'other', config.modeTable), kind: 'other' };
}

function subjectOf(
  toolName: string,
  args: unknown,
  kinds: readonly ToolKind[],
  config: PolicyConfig,
): Subject {
  let line: string | undefined;
  const foreign = toolName !== 'Bash';
  if (!foreign) {
    line = firstStringArg(args, ['command']);
  } else {
    // Deny rules about Bash apply to every tool that may run a command line it carries: an
    // execute-kind tool, and one of unknown kind (`shell`, an MCP `run_command`).
    if (!kinds.some((k) => k === 'execute' || k === 'other')) return { toolName, args };
    const carried = commandLineOf(args);
    if (carried === undefined) return { toolName, args };
    line = carried === 'unknown' ? undefined : carried;
  }
  const shell = budgeted(config.shell);
  const grammar = line === undefined ? undefined : readBashLine(line);
  const cwd: CwdJudgement = foreign ? { kind: 'rules' } : judgeCwd(args, config.workspaceRoot);
  // tree-sitter only runs when something asks for its reading (deny and ask rules on a line
  // outside the grammar, an exact rule, a reason), and within the line's budget.
  let split: ShellSplit | undefined | null = null;
  const subject: ShellSubject = {
    line,
    get split() {
      if (split === null) split = line === undefined ? undefined : shell.split(line);
      return split;
    },
    grammar,
    shell,
    executed: new Map(),
    foreign,
    cwd,
  };
  return { toolName, args, shell: subject };
}

/** The rules about Bash command lines among `rules`. */
function commandRules(rules: readonly CompiledRule[]): CompiledRule[] {
  return rules.filter((r) => r.rule.type === 'command');
}

/**
 * For an execute-kind tool other than Bash, the first deny rule, else the first ask rule, about
 * Bash that one of the strings it carries matches when read as a command line
 * ({@link stringsCarriedBy}), beside its `command`/`cmd`/`argv` if it has one (`{command: "echo
 * hi", script: "rm x"}`: the tool may run either); `too_many` when it carries more than can be
 * read. Only a match counts: such a string may be data (`{suite: "unit"}`), so a line that cannot
 * be checked does not make the call undecidable (docs/permissions-policy.md, "Deny rules see the
 * real command").
 */
function carriedLineFound(
  args: unknown,
  toolName: string,
  kinds: readonly ToolKind[],
  denies: readonly CompiledRule[],
  asks: readonly CompiledRule[],
  config: PolicyConfig,
): { deny?: CompiledRule; ask?: CompiledRule } | 'too_many' | undefined {
  if (toolName === 'Bash' || !kinds.includes('execute') || denies.length + asks.length === 0)
    return undefined;
  const lines = stringsCarriedBy(args, TREE_SITTER_BUDGET);
  if (lines === 'too_many') return 'too_many';
  let ask: CompiledRule | undefined;
  for (const line of lines) {
    const subject = subjectOf(toolName, { command: line }, kinds, config);
    const denied = find(denies, subject, config);
    if (denied && 'matched' in denied) return { deny: denied.matched };
    const asked = ask ? undefined : find(asks, subject, config);
    if (asked && 'matched' in asked) ask = asked.matched;
  }
  return ask ? { ask } : undefined;
}

/**
 * Most characters one call's checks hand to tree-sitter, the line and every `bash -c` string in
 * it together; beyond it, a split is `too_long` (so deny rules cannot be checked: ask, or deny
 * where nobody would be asked). tree-sitter's time on hostile text grows faster than its length,
 * so it only ever sees short text ({@link MAX_SHELL_COMMAND_LENGTH} at a time).
 */
const TREE_SITTER_BUDGET = 2 * MAX_SHELL_COMMAND_LENGTH;

function budgeted(shell: ShellParser): ShellParser {
  let left = TREE_SITTER_BUDGET;
  return {
    split(command) {
      if (command.length > left) return { ok: false, reason: 'too_long' };
      left -= command.length;
      return shell.split(command);
    },
  };
}

/** Why the line is not one the policy reads exactly (not in the grammar, or running what cannot be known). */
function inexactLine(subject: Subject): ShellConcern | undefined {
  const s = subject.shell;
  if (!s) return undefined;
  if (s.line === undefined || !s.grammar) return { kind: 'unparsable', reason: 'missing_command' };
  if (!s.grammar.ok) return { kind: 'outside_grammar', reason: s.grammar.reason };
  for (const command of s.grammar.commands) {
    const why = unknowable(s, command);
    if (why !== undefined) return { kind: 'unchecked', reason: why };
  }
  return undefined;
}

function cwdConcernOf(subject: Subject): ShellConcern | undefined {
  const cwd = subject.shell?.cwd;
  return cwd?.kind === 'concern' ? { kind: 'cwd', reason: cwd.reason } : undefined;
}

/**
 * Why what a command runs cannot be known before it runs, if so: a computed command name (here or
 * behind a wrapper), a wrapper option we do not know, or `eval`, which builds its command when it
 * runs.
 */
function unknowable(s: ShellSubject, command: ShellCommand | GrammarCommand): string | undefined {
  const executed = executedOf(s, command);
  if (executed.unchecked !== undefined) return executed.unchecked;
  return executed.runs.some((run) => run[0]?.value === 'eval') ? 'eval runs a string as code' : undefined;
}

function executedOf(subject: ShellSubject, command: ShellCommand | GrammarCommand): ExecutedCommands {
  let found = subject.executed.get(command);
  if (!found) {
    found = executedCommands(command.words, subject.shell);
    subject.executed.set(command, found);
  }
  return found;
}

/** The first matching rule; otherwise the rules about this call that could not be checked. */
function find(rules: readonly CompiledRule[], subject: Subject, config: PolicyConfig): Found {
  const unknown: CompiledRule[] = [];
  for (const compiled of rules) {
    const m = matchOne(compiled.rule, subject, config);
    if (m === 'match') return { matched: compiled };
    if (m === 'unknown') unknown.push(compiled);
  }
  return unknown.length > 0 ? { unknown } : undefined;
}

/**
 * Deny/ask matching: the whole line as text, or what any simple command in it runs, nested and
 * wrapped ones included, by its real name (`/bin/rm`, `\rm`, `"rm"`, `x=1 rm`, `sudo rm`,
 * `bash -c 'rm …'` are all `rm`). `unknown` when part of it cannot be checked.
 */
function matchOne(rule: ParsedRule, subject: Subject, config: PolicyConfig): RuleMatch {
  if (rule.type !== 'command') {
    return matchCallRule(rule, subject.toolName, subject.args, {
      workspaceRoot: config.workspaceRoot,
      purpose: 'deny',
    });
  }
  if (!subject.shell) return 'no-match';
  const s = subject.shell;
  if (s.line === undefined) return 'unknown';
  if (matchCommandText(rule, s.line)) return 'match';
  // The rule's words as the grammar reads them; tree-sitter's for a rule outside it (`Bash(rm ~)`).
  const words = allowRuleWords(rule) ?? ruleWords(rule, config.shell);
  if (words !== undefined && s.grammar?.ok) {
    // The grammar reads the line exactly and nothing in it is nested: its commands, and what
    // their wrappers run, are everything the line runs.
    let unchecked = false;
    const target = realNameWords(words);
    for (const command of s.grammar.commands) {
      const executed = executedOf(s, command);
      if (executed.runs.some((run) => matchRun(target, run, rule.prefix))) return 'match';
      if (executed.unchecked !== undefined || executed.mayRunCode !== undefined) unchecked = true;
      if (executed.runs.some((run) => mayMatchWithInput(target, run))) unchecked = true;
    }
    return unchecked ? 'unknown' : 'no-match';
  }
  if (!s.split || !s.split.ok) return 'unknown';
  // Words tree-sitter reads differently from bash cannot be trusted either way.
  let unknown = s.split.hazards.some((h) => h.kind === 'unsafe_characters');
  if (words === undefined) {
    return s.split.commands.some((c) => matchCommandText(rule, c.text))
      ? 'match'
      : unknown
        ? 'unknown'
        : 'no-match';
  }
  const target = realNameWords(words);
  for (const command of s.split.commands) {
    const executed = executedOf(s, command);
    if (executed.runs.some((run) => matchRun(target, run, rule.prefix))) return 'match';
    if (executed.unchecked !== undefined || executed.mayRunCode !== undefined) unknown = true;
    if (executed.runs.some((run) => mayMatchWithInput(target, run))) unknown = true;
  }
  return unknown ? 'unknown' : 'no-match';
}

/**
 * A deny or ask rule's words against one run: as written, or with the global options of git and
 * the package managers left out (`git --no-pager push` under `Bash(git push:*)`).
 */
function matchRun(rule: readonly ShellWord[], run: readonly ShellWord[], prefix: boolean): boolean {
  if (matchWords(rule, run, prefix)) return true;
  if (rule.length < 2) return false;
  if (prefix && optionsAnywhere(rule, run)) return true;
  // Read once per run, whatever the number of rules.
  let plain = withoutOptions.get(run);
  if (plain === undefined) {
    plain = withoutGlobalOptions(run) ?? null;
    withoutOptions.set(run, plain);
  }
  return plain !== null && (matchWords(rule, plain, prefix) || (prefix && optionsAnywhere(rule, plain)));
}

/**
 * A deny or ask prefix rule whose words go on with options (`Bash(git push --force:*)`,
 * `Bash(rm -rf:*)`) against a run that has the words before the first option: it matches when
 * every later word of the rule is among the run's later words, however placed and spelled as the
 * tools read them — options in any order and after arguments (`git push origin main --force`),
 * short options in any cluster (`rm -f -r`, `rm -fr`), a long option abbreviated (`--forc`), and
 * `--opt=value` as `--opt value`. Matching more only makes a call denied or asked.
 */
function optionsAnywhere(rule: readonly ShellWord[], run: readonly ShellWord[]): boolean {
  const first = rule.findIndex((w, i) => i > 0 && (w.value ?? '').startsWith('-') && w.value !== '-');
  if (first === -1 || !matchWords(rule.slice(0, first), run, true)) return false;
  const rest = run.slice(first);
  return rule.slice(first).every((r) => r.value !== undefined && presentIn(r.value, rest));
}

function presentIn(word: string, rest: readonly ShellWord[]): boolean {
  if (word.startsWith('--') && word.length > 2) {
    const eq = word.indexOf('=');
    const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
    const value = eq === -1 ? undefined : word.slice(eq + 1);
    return rest.some((w, k) => {
      const v = w.value;
      if (v === undefined || !v.startsWith('--') || v.length < 4) return false;
      const at = v.indexOf('=');
      const given = at === -1 ? v.slice(2) : v.slice(2, at);
      if (!name.startsWith(given)) return false;
      if (value === undefined) return true;
      return at === -1 ? rest[k + 1]?.value === value : v.slice(at + 1) === value;
    });
  }
  if (/^-[^-]/.test(word)) {
    const clusters = rest.filter((w) => /^-[^-]/.test(w.value ?? ''));
    return [...word.slice(1)].every((letter) => clusters.some((w) => w.value!.includes(letter, 1)));
  }
  return rest.some((w) => w.value === word);
}

const withoutOptions = new WeakMap<readonly ShellWord[], readonly ShellWord[] | null>();

/**
 * True when `run` could match the rule's words once the words it reads from its input are known
 * (`xargs rm` under `Bash(rm -rf:*)`: the input may be `-rf /`): the words before the first input
 * word match the rule's, and the input word stands where the rule's words go on.
 */
function mayMatchWithInput(rule: readonly ShellWord[], run: readonly ShellWord[]): boolean {
  const at = run.findIndex(isInputWord);
  if (at === -1 || at >= rule.length) return false;
  return matchWords(rule.slice(0, at), run.slice(0, at), false);
}

/** A deny rule's words with the command name reduced to its base name, as runs are. */
function realNameWords(words: readonly ShellWord[]): readonly ShellWord[] {
  const [name, ...rest] = words;
  if (name?.value === undefined) return words;
  return [{ text: name.text, value: baseName(name.value) }, ...rest];
}

/**
 * Allow matching; returns the rules used (empty when the call is not allowed by rules). A Bash
 * line is allowed only when the grammar reads it exactly ({@link readBashLine}), from a judged
 * cwd, and every simple command is allowed by a rule: the bare `Bash` rule, an exact rule for the
 * whole line, or a rule whose words the command's words match. A rule naming a relative path
 * (`Bash(./scripts/test.sh)`) covers it only in the directory rules are written for, before any
 * `cd`. Outside the grammar, only an exact rule for that very text allows, and never a line with
 * characters that show differently from what bash reads.
 */
function findAllow(rules: readonly CompiledRule[], subject: Subject, config: PolicyConfig): CompiledRule[] {
  if (!subject.shell || subject.shell.foreign) {
    const hit = rules.find((r) => matchCallRule(r.rule, subject.toolName, subject.args, config) === 'match');
    return hit ? [hit] : [];
  }
  const s = subject.shell;
  const line = s.line;
  if (line === undefined || s.cwd.kind === 'concern') return [];
  const exactForLine = (): CompiledRule[] => {
    if (s.cwd.kind !== 'rules') return [];
    const exact = rules.find(
      (r) => r.rule.type === 'command' && !r.rule.prefix && matchCommandText(r.rule, line),
    );
    return exact ? [exact] : [];
  };
  if (!s.grammar?.ok || inexactLine(subject)) {
    if (!s.split?.ok || s.split.hazards.some((h) => h.kind === 'unsafe_characters')) return [];
    if (unsafeCharacters(line) !== undefined) return [];
    if (s.split.commands.some((c) => unknowable(s, c) !== undefined)) return [];
    return exactForLine();
  }
  const whole = rules.find((r) => ruleCoversWholeTool(r.rule, 'Bash'));
  if (whole) return [whole];
  const exact = exactForLine();
  if (exact.length > 0) return exact;
  const used: CompiledRule[] = [];
  let moved = false;
  for (const command of s.grammar.commands) {
    const hit = rules.find((r) => {
      if (r.rule.type !== 'command') return false;
      const words = allowRuleWords(r.rule);
      if (words === undefined || !matchWords(words, command.words, r.rule.prefix)) return false;
      // A prefix grant covers the further words as arguments, never one the command table marks.
      if (r.rule.prefix && grantGap(command.words, words.length, config.workspaceRoot)) return false;
      const namesPath = words.some((w) => w.value !== undefined && isRelativePath(w.value));
      return !namesPath || (s.cwd.kind === 'rules' && !moved);
    });
    if (!hit) return [];
    if (!used.includes(hit)) used.push(hit);
    if (CHANGES_DIRECTORY.has(command.words[0]?.value ?? '')) moved = true;
  }
  return used;
}

/**
 * The first word past the `covered` words of a prefix grant that the grant does not cover
 * ({@link grantProblem}); through a wrapper (`env`, `nice`, `xargs`, `timeout`, `sudo`, `bash -c`),
 * the command it runs must be among the covered words, and is judged the same way.
 */
function grantGap(
  words: readonly ShellWord[],
  covered: number,
  workspaceRoot: string | undefined,
  depth = 0,
): Marked | undefined {
  const base = baseName(words[0]?.value ?? '');
  const inner = base === 'find' ? undefined : wrapped(words);
  if (inner === undefined) return grantProblem(words, covered, workspaceRoot);
  const runs = (why: string): Marked => ({ index: 0, effect: 'code', why: `${base} ${why}` });
  if ('unchecked' in inner || depth >= 8) return runs('runs what cannot be known');
  if ((inner.script !== undefined || inner.opaque !== undefined) && words.length > covered)
    return runs('runs code given in its arguments');
  for (const run of inner.runs) {
    if (run.length === 0) continue;
    // Words from xargs's input are unseen: only a command the table marks nothing of takes them.
    if (run.some(isInputWord) && !marksNoWord(run))
      return runs(`gives ${run[0]!.text} words from its input, which may be options the table marks`);
    const at = words.indexOf(run[0]!);
    if (at < 0 || at >= covered) return runs(`runs ${run[0]!.text}, which the grant does not name`);
    const gap = grantGap(words.slice(at), covered - at, workspaceRoot, depth + 1);
    if (gap) return { ...gap, index: gap.index + at };
  }
  return undefined;
}

/** Why a line's commands may run code the policy cannot see, for the reason of an unchecked rule. */
function codeConcernOf(subject: Subject): ShellConcern | undefined {
  const s = subject.shell;
  if (!s) return undefined;
  const commands = s.grammar?.ok ? s.grammar.commands : s.split?.ok ? s.split.commands : [];
  for (const command of commands) {
    const why = executedOf(s, command).mayRunCode;
    if (why !== undefined) return { kind: 'unchecked', reason: `${why}: it may run code` };
  }
  return undefined;
}

function compileSession(rules: readonly SessionRule[]): {
  allow: CompiledRule[];
  deny: CompiledRule[];
  broken: boolean;
} {
  const allow: CompiledRule[] = [];
  const deny: CompiledRule[] = [];
  let broken = false;
  for (const s of rules) {
    const parsed = parseRule(s.rule);
    if (!parsed.ok) {
      if (s.behavior === 'deny') broken = true;
      continue;
    }
    const list: RuleList = s.behavior === 'allow' ? 'session-allow' : 'session-deny';
    (s.behavior === 'allow' ? allow : deny).push({
      text: formatRule(parsed.value),
      rule: parsed.value,
      list,
      id: s.id,
    });
  }
  return { allow, deny, broken };
}

function refOf(rule: CompiledRule): RuleRef {
  return { rule: rule.text, list: rule.list, ...(rule.id !== undefined ? { id: rule.id } : {}) };
}

function ruleReason(rule: CompiledRule): PolicyReason {
  return { kind: 'rule', ...refOf(rule) };
}

function shellConcernOf(subject: Subject): { shell?: ShellConcern } {
  if (!subject.shell) return {};
  const s = subject.shell;
  if (s.line === undefined) return { shell: { kind: 'unparsable', reason: 'missing_command' } };
  const cwd = cwdConcernOf(subject);
  if (cwd) return { shell: cwd };
  if (s.grammar?.ok) {
    const inexact = inexactLine(subject);
    return inexact ? { shell: inexact } : {};
  }
  if (!s.split) return {};
  if (!s.split.ok) return { shell: { kind: 'unparsable', reason: s.split.reason } };
  for (const command of s.split.commands) {
    const unchecked = executedOf(s, command).unchecked;
    if (unchecked !== undefined) return { shell: { kind: 'unchecked', reason: unchecked } };
  }
  if (s.split.hazards.length > 0)
    return { shell: { kind: 'hazard', hazards: [...new Set(s.split.hazards.map((h) => h.kind))] } };
  const inexact = inexactLine(subject);
  return inexact ? { shell: inexact } : {};
}
