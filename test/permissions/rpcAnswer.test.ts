import { describe, expect, it } from 'vitest';
import { DEFAULT_PERMISSION_OPTIONS } from 'happy-session/permissions';
import {
  mapLegacyAnswer,
  parseLegacyPermissionBody,
  parsePermissionRpcBody,
  parseV2PermissionBody,
  type LegacyPendingRequest,
} from '../../packages/sdk/src/gate/rpcAnswer.js';
import type { PermissionOption } from 'happy-session';

const bashRequest: LegacyPendingRequest = {
  toolName: 'Bash',
  args: { command: 'npm test' },
  options: DEFAULT_PERMISSION_OPTIONS,
};
const readRequest: LegacyPendingRequest = {
  toolName: 'Read',
  args: { file_path: 'a.ts' },
  options: DEFAULT_PERMISSION_OPTIONS,
};
const editRequest: LegacyPendingRequest = {
  toolName: 'Edit',
  args: { file_path: 'a.ts' },
  options: DEFAULT_PERMISSION_OPTIONS,
};

function map(body: unknown, pending: LegacyPendingRequest = bashRequest) {
  const parsed = parseLegacyPermissionBody(body);
  if (!parsed.ok) return parsed;
  return mapLegacyAnswer(parsed.value, pending);
}

describe('legacy permission body: the mapping table', () => {
  it('row 1: {approved:true} → allow-once', () => {
    expect(map({ id: 'T', approved: true })).toEqual({
      ok: true,
      value: { optionId: 'allow-once', kind: 'allow-once', interrupt: false },
    });
  });

  it('row 1: {approved:true, decision:"approved"} → allow-once (Codex "Yes")', () => {
    expect(map({ id: 'T', approved: true, decision: 'approved' })).toEqual({
      ok: true,
      value: { optionId: 'allow-once', kind: 'allow-once', interrupt: false },
    });
  });

  it('row 1 with mode: "Yes, allow all edits" → allow-once and a mode change', () => {
    expect(map({ id: 'T', approved: true, mode: 'acceptEdits' }, editRequest)).toEqual({
      ok: true,
      value: { optionId: 'allow-once', kind: 'allow-once', interrupt: false, mode: 'acceptEdits' },
    });
  });

  it('row 1 with updatedInput: AskUserQuestion answers pass through', () => {
    const body = { id: 'T', approved: true, decision: 'approved', updatedInput: { answers: { q1: 'yes' } } };
    expect(map(body, { toolName: 'AskUserQuestion', args: {}, options: DEFAULT_PERMISSION_OPTIONS })).toEqual(
      {
        ok: true,
        value: {
          optionId: 'allow-once',
          kind: 'allow-once',
          interrupt: false,
          updatedInput: { answers: { q1: 'yes' } },
        },
      },
    );
  });

  it('row 2: decision approved_for_session → allow-always with the request rule', () => {
    expect(map({ id: 'T', approved: true, decision: 'approved_for_session' })).toEqual({
      ok: true,
      value: { optionId: 'allow-session', kind: 'allow-always', interrupt: false, rule: 'Bash(npm test)' },
    });
  });

  it('row 3: allowTools naming the request rule → allow-always ("don\'t ask again")', () => {
    expect(map({ id: 'T', approved: true, allowTools: ['Bash(npm test)'] })).toEqual({
      ok: true,
      value: { optionId: 'allow-session', kind: 'allow-always', interrupt: false, rule: 'Bash(npm test)' },
    });
    expect(map({ id: 'T', approved: true, allowTools: ['Read'] }, readRequest)).toMatchObject({
      ok: true,
      value: { kind: 'allow-always', rule: 'Read' },
    });
    // An edit's rule is the exact call; the tool name alone is wider than what was shown.
    const exactEdit = 'Edit{"file_path":"a.ts"}';
    expect(map({ id: 'T', approved: true, allowTools: [exactEdit] }, editRequest)).toMatchObject({
      ok: true,
      value: { kind: 'allow-always', rule: exactEdit },
    });
    expect(map({ id: 'T', approved: true, allowTools: ['Edit'] }, editRequest)).toMatchObject({
      ok: false,
      error: { code: 'permissions.rule_mismatch' },
    });
  });

  it('row 4: {approved:false} (the app\'s "No") and decision denied → reject-once without interrupt', () => {
    expect(map({ id: 'T', approved: false, decision: 'denied', reason: 'use pnpm' })).toEqual({
      ok: true,
      value: { optionId: 'deny', kind: 'reject-once', interrupt: false, message: 'use pnpm' },
    });
    expect(map({ id: 'T', approved: false })).toEqual({
      ok: true,
      value: { optionId: 'deny', kind: 'reject-once', interrupt: false },
    });
  });

  it("row 5: decision abort (the person's stop) → reject-once and stop the turn", () => {
    expect(map({ id: 'T', approved: false, decision: 'abort' })).toEqual({
      ok: true,
      value: { optionId: 'deny', kind: 'reject-once', interrupt: true },
    });
  });

  it('reads yolo as bypassPermissions', () => {
    expect(map({ id: 'T', approved: true, mode: 'yolo' })).toMatchObject({
      ok: true,
      value: { mode: 'bypassPermissions' },
    });
  });
});

describe('legacy permission body: picking options by kind', () => {
  const acpLike: PermissionOption[] = [
    { id: 'r1', label: 'Reject once', kind: 'reject-once' },
    { id: 'a2', label: 'Allow', kind: 'allow-always' },
    { id: 'a1', label: 'Allow', kind: 'allow-once' },
  ];

  it('picks the option of the kind, whatever its id or label (docs/permissions-requirements.md, scenario 20)', () => {
    expect(map({ id: 'T', approved: true }, { ...bashRequest, options: acpLike })).toMatchObject({
      ok: true,
      value: { optionId: 'a1' },
    });
    expect(
      map(
        { id: 'T', approved: true, decision: 'approved_for_session' },
        { ...bashRequest, options: acpLike },
      ),
    ).toMatchObject({
      ok: true,
      value: { optionId: 'a2', kind: 'allow-always' },
    });
    expect(map({ id: 'T', approved: false }, { ...bashRequest, options: acpLike })).toMatchObject({
      ok: true,
      value: { optionId: 'r1' },
    });
  });

  it('never escalates allow-once to allow-always', () => {
    const onlyAlways: PermissionOption[] = [
      { id: 'always', label: 'Always', kind: 'allow-always' },
      { id: 'no', label: 'No', kind: 'reject-once' },
    ];
    expect(map({ id: 'T', approved: true }, { ...bashRequest, options: onlyAlways })).toEqual({
      ok: false,
      error: {
        code: 'permissions.invalid_option',
        message: 'The request offers no allow-once option for this answer.',
      },
    });
  });

  it('falls back from allow-always to allow-once when allow-always is not offered', () => {
    const onceOnly: PermissionOption[] = [
      { id: 'yes', label: 'Yes', kind: 'allow-once' },
      { id: 'no', label: 'No', kind: 'reject-once' },
    ];
    expect(
      map(
        { id: 'T', approved: true, decision: 'approved_for_session' },
        { ...bashRequest, options: onceOnly },
      ),
    ).toEqual({
      ok: true,
      value: { optionId: 'yes', kind: 'allow-once', interrupt: false, downgraded: true },
    });
  });

  it('grants the exact call for a Codex shell tool\'s "approved_for_session"', () => {
    const codex = { toolName: 'CodexBash', args: { command: 'ls' }, options: DEFAULT_PERMISSION_OPTIONS };
    expect(map({ id: 'T', approved: true, decision: 'approved_for_session' }, codex)).toMatchObject({
      ok: true,
      value: { kind: 'allow-always', rule: 'CodexBash{"command":"ls"}' },
    });
  });

  it('falls back to allow-once when no exact rule exists for the call', () => {
    const prefixLike = { ...bashRequest, args: { command: 'echo a:*' } };
    expect(map({ id: 'T', approved: true, decision: 'approved_for_session' }, prefixLike)).toMatchObject({
      ok: true,
      value: { kind: 'allow-once', downgraded: true },
    });
  });

  it('does not turn a plain "No" into reject-always', () => {
    const alwaysOnly: PermissionOption[] = [
      { id: 'yes', label: 'Yes', kind: 'allow-once' },
      { id: 'never', label: 'Never', kind: 'reject-always' },
    ];
    expect(map({ id: 'T', approved: false }, { ...bashRequest, options: alwaysOnly })).toMatchObject({
      ok: false,
      error: { code: 'permissions.invalid_option' },
    });
  });
});

describe('legacy permission body: rejections', () => {
  it.each([
    [{ id: 'T', approved: true, decision: 'denied' }, 'approved: true contradicts decision: "denied"'],
    [{ id: 'T', approved: true, decision: 'abort' }, 'approved: true contradicts decision: "abort"'],
    [{ id: 'T', approved: false, decision: 'approved' }, 'approved: false contradicts decision: "approved"'],
    [
      { id: 'T', approved: false, decision: 'approved_for_session' },
      'approved: false contradicts decision: "approved_for_session"',
    ],
    [{ id: 'T', approved: false, allowTools: ['Edit'] }, 'approved: false cannot grant allowTools'],
    [{ id: 'T', approved: false, mode: 'plan' }, 'approved: false cannot change the mode'],
    [{ id: 'T', approved: false, updatedInput: {} }, 'approved: false cannot carry updatedInput'],
    [
      { id: 'T', approved: true, decision: 'approved', allowTools: ['Edit'] },
      'decision: "approved" (once) contradicts allowTools (always)',
    ],
  ])('contradictory %j → invalid_payload', (body, issue) => {
    expect(map(body)).toEqual({
      ok: false,
      error: {
        code: 'permissions.invalid_payload',
        message: 'the legacy permission body contradicts itself',
        issues: [issue],
      },
    });
  });

  it.each([
    [null],
    ['approve'],
    [[]],
    [{ approved: true }],
    [{ id: '', approved: true }],
    [{ id: 'T' }],
    [{ id: 'T', approved: 'yes' }],
    [{ id: 'T', approved: 1 }],
    [{ id: 'T', approved: true, decision: 'accept' }],
    [{ id: 'T', approved: true, mode: 3 }],
    [{ id: 'T', approved: true, allowTools: 'Edit' }],
    [{ id: 'T', approved: true, allowTools: ['Bash('] }],
    [{ id: 'T', approved: true, allowTools: Array.from({ length: 17 }, () => 'Edit') }],
    [{ id: 'T', approved: true, updatedInput: [1] }],
    [{ id: 'T', approved: true, reason: 5 }],
  ])('malformed %j → invalid_payload', (body) => {
    expect(map(body)).toMatchObject({ ok: false, error: { code: 'permissions.invalid_payload' } });
  });

  it('an unknown mode → mode_not_allowed, the whole answer refused', () => {
    expect(map({ id: 'T', approved: true, mode: 'auto_edit' })).toMatchObject({
      ok: false,
      error: { code: 'permissions.mode_not_allowed' },
    });
  });

  it('allowTools broader than the request rule → rule_mismatch', () => {
    expect(map({ id: 'T', approved: true, allowTools: ['Bash(npm:*)'] })).toMatchObject({
      ok: false,
      error: { code: 'permissions.rule_mismatch' },
    });
    expect(map({ id: 'T', approved: true, allowTools: ['Bash'] })).toMatchObject({
      ok: false,
      error: { code: 'permissions.rule_mismatch' },
    });
    expect(map({ id: 'T', approved: true, allowTools: ['Bash(npm test)', 'Edit'] })).toMatchObject({
      ok: false,
      error: { code: 'permissions.rule_mismatch' },
    });
    expect(map({ id: 'T', approved: true, allowTools: ['WebFetch'] }, editRequest)).toMatchObject({
      ok: false,
      error: { code: 'permissions.rule_mismatch' },
    });
  });
});

describe('the permission RPC body, v2 and legacy', () => {
  it('parses the v2 body {callId, optionId}', () => {
    expect(parsePermissionRpcBody({ callId: 'c1', optionId: 'allow-once' })).toEqual({
      ok: true,
      value: { format: 'v2', body: { callId: 'c1', optionId: 'allow-once' } },
    });
    expect(parseV2PermissionBody({ callId: 'c1', optionId: 'deny', requestId: 'q1', extra: 1 })).toEqual({
      ok: true,
      value: { callId: 'c1', optionId: 'deny', requestId: 'q1' },
    });
  });

  it('parses the legacy body', () => {
    expect(parsePermissionRpcBody({ id: 'T', approved: true })).toEqual({
      ok: true,
      value: { format: 'legacy', body: { id: 'T', approved: true } },
    });
  });

  it.each([
    [{ callId: 'c1' }],
    [{ optionId: 'x' }],
    [{ callId: 5, optionId: 'x' }],
    [{ callId: 'c1', optionId: '' }],
    [{ callId: 'c1', optionId: 'x', requestId: 7 }],
    [{ callId: 'c1', optionId: 'x', id: 'T', approved: true }],
    [{ callId: 'x'.repeat(513), optionId: 'x' }],
    [Object.create({ callId: 'c1', optionId: 'x' })],
    [new Date()],
  ])('refuses %j with invalid_payload', (body) => {
    expect(parsePermissionRpcBody(body)).toMatchObject({
      ok: false,
      error: { code: 'permissions.invalid_payload' },
    });
  });
});
