// How an ACP permission request becomes a v2 `permission-request`, and how the user's decision goes
// back to the agent. Options are matched by kind, never by name (permissions docs/permissions-requirements.md R12).
// In your project, import from 'happy-session' and 'happy-session/permissions' instead of ../../src.
import type * as acp from '@agentclientprotocol/sdk';
import type { PermissionDecision, PermissionOption, PermissionOptionKind } from 'happy-session';
import { MAX_OPTION_ID_LENGTH, MAX_OPTION_LABEL_LENGTH, MAX_OPTIONS } from 'happy-session/permissions';

/** The v2 options offered for one ACP request, and which ACP option each stands for. */
export interface PermissionOffer {
  /** What the user is offered: the agent's options, ids kept where v2 allows them. */
  readonly options: readonly PermissionOption[];
  /** v2 option id → the agent's option (absent for the bridge's own reject, see below). */
  readonly agentOption: ReadonlyMap<string, acp.PermissionOption>;
  /** The agent's options of the four known kinds, in the agent's order. */
  readonly agentOptions: readonly acp.PermissionOption[];
}

const KIND_FROM_ACP: Readonly<Record<acp.PermissionOptionKind, PermissionOptionKind>> = {
  allow_once: 'allow-once',
  allow_always: 'allow-always',
  reject_once: 'reject-once',
  reject_always: 'reject-always',
};

/** The v2 spelling of an ACP option kind; undefined for a kind this bridge does not know. */
export function kindFromAcp(kind: string): PermissionOptionKind | undefined {
  return Object.hasOwn(KIND_FROM_ACP, kind) ? KIND_FROM_ACP[kind as acp.PermissionOptionKind] : undefined;
}

/**
 * What the agent is answered for each decided kind, best first. Each list holds the kind itself
 * and then only kinds that allow no more: allow-always may become allow-once, allow-once never
 * becomes allow-always, and no allow ever becomes a reject (that would change the answer).
 */
const FALLBACK: Readonly<Record<PermissionOptionKind, readonly PermissionOptionKind[]>> = {
  'allow-always': ['allow-always', 'allow-once'],
  'allow-once': ['allow-once'],
  'reject-once': ['reject-once', 'reject-always'],
  'reject-always': ['reject-always', 'reject-once'],
};

const BRIDGE_REJECT_ID = 'bridge-reject';
// Option ids travel back unchanged when v2 accepts them; this is what it does not accept.
// eslint-disable-next-line no-control-regex
const BAD_ID = /[\s\u0000-\u001f\u007f]/;

/**
 * Builds the v2 options from the agent's: ids preserved (an id v2 cannot carry, with spaces or
 * too long, gets a stand-in `option-<n>`), kinds respelled, names kept as labels. Options of a kind
 * the bridge does not know are left out, so they can never be chosen. When the agent offers no
 * reject option, the bridge adds its own "Deny" so the user can always refuse; choosing it answers
 * the agent `cancelled`.
 */
export function offerFromAgent(agentOptions: readonly acp.PermissionOption[]): PermissionOffer {
  const known = agentOptions.filter((o) => kindFromAcp(o.kind) !== undefined).slice(0, MAX_OPTIONS - 1);
  const options: PermissionOption[] = [];
  const agentOption = new Map<string, acp.PermissionOption>();
  for (const [index, option] of known.entries()) {
    const kind = kindFromAcp(option.kind)!;
    let id = usableId(option.optionId) ? option.optionId : `option-${index + 1}`;
    while (agentOption.has(id)) id = `${id}-${index + 1}`;
    agentOption.set(id, option);
    options.push({ id, kind, label: labelOf(option.name, kind) });
  }
  if (!options.some((o) => o.kind.startsWith('reject'))) {
    let id = BRIDGE_REJECT_ID;
    while (agentOption.has(id)) id = `${id}-x`;
    options.push({ id, kind: 'reject-once', label: 'Deny' });
  }
  return { options, agentOption, agentOptions: known };
}

/**
 * The answer for the agent. A user's pick goes back as the agent's option it stands for when the
 * kinds agree; otherwise (and for decisions of the policy, which have no kind: an allow counts as
 * allow-once) the agent's first option of the nearest kind in {@link FALLBACK}. When no option
 * fits, or nobody decided (abort, turn end, shutdown), the answer is `cancelled`.
 */
export function answerForAgent(
  decision: PermissionDecision,
  offer: PermissionOffer,
): acp.RequestPermissionOutcome {
  if (decision.outcome === 'cancelled') return { outcome: 'cancelled' };
  const kind: PermissionOptionKind =
    decision.kind ?? (decision.outcome === 'allow' ? 'allow-once' : 'reject-once');
  const picked = decision.optionId !== undefined ? offer.agentOption.get(decision.optionId) : undefined;
  if (picked && kindFromAcp(picked.kind) === kind) {
    return { outcome: 'selected', optionId: picked.optionId };
  }
  for (const candidate of FALLBACK[kind]) {
    const option = offer.agentOptions.find((o) => kindFromAcp(o.kind) === candidate);
    if (option) return { outcome: 'selected', optionId: option.optionId };
  }
  return { outcome: 'cancelled' };
}

function usableId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_OPTION_ID_LENGTH && !BAD_ID.test(id);
}

function labelOf(name: string, kind: PermissionOptionKind): string {
  const label = name.trim().length > 0 ? name : kind;
  return label.length > MAX_OPTION_LABEL_LENGTH ? `${label.slice(0, MAX_OPTION_LABEL_LENGTH - 1)}…` : label;
}
