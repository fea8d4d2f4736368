import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MODE_TABLE,
  PERMISSION_MODES,
  TOOL_KINDS,
  parseMode,
  type ModeCell,
  type PermissionMode,
} from 'happy-session/permissions';
import { modeCell } from '../../packages/sdk/src/policy/modes.js';

// Research R4.2, one row per mode; columns in TOOL_KINDS order:
// read search think fetch edit delete move execute switch_mode other
const EXPECTED: Record<PermissionMode, ModeCell[]> = {
  default: ['ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask'],
  acceptEdits: ['ask', 'ask', 'ask', 'ask', 'allow', 'allow', 'allow', 'ask', 'ask', 'ask'],
  plan: ['allow', 'allow', 'allow', 'deny', 'deny', 'deny', 'deny', 'deny', 'deny', 'deny'],
  'read-only': ['allow', 'allow', 'allow', 'ask', 'deny', 'deny', 'deny', 'ask', 'ask', 'ask'],
  dontAsk: ['ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask'],
  'safe-yolo': ['allow', 'allow', 'allow', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask', 'ask'],
  bypassPermissions: [
    'allow',
    'allow',
    'allow',
    'allow',
    'allow',
    'allow',
    'allow',
    'allow',
    'allow',
    'allow',
  ],
};

describe('mode table', () => {
  for (const mode of PERMISSION_MODES) {
    for (const [i, kind] of TOOL_KINDS.entries()) {
      it(`${mode} × ${kind} → ${EXPECTED[mode][i]}`, () => {
        expect(modeCell(mode, kind)).toBe(EXPECTED[mode][i]);
      });
    }
  }

  it('puts other (unknown kinds) in the execute column, and never allows it below bypass', () => {
    for (const mode of PERMISSION_MODES) {
      expect(modeCell(mode, 'other')).toBe(modeCell(mode, 'execute'));
      if (mode !== 'bypassPermissions') expect(modeCell(mode, 'other')).not.toBe('allow');
    }
  });

  it('only dontAsk denies what nothing decided', () => {
    for (const mode of PERMISSION_MODES) {
      expect(DEFAULT_MODE_TABLE[mode].unresolved).toBe(mode === 'dontAsk' ? 'deny' : 'ask');
    }
  });

  it('lets the host retarget a single cell', () => {
    const overrides = { 'safe-yolo': { execute: 'allow' as const } };
    expect(modeCell('safe-yolo', 'execute', overrides)).toBe('allow');
    expect(modeCell('safe-yolo', 'other', overrides)).toBe('ask');
    expect(modeCell('default', 'execute', overrides)).toBe('ask');
  });
});

describe('parseMode', () => {
  it('accepts every canonical mode', () => {
    for (const mode of PERMISSION_MODES) expect(parseMode(mode)).toEqual({ ok: true, value: mode });
  });

  it('reads the Happy CLI spelling yolo as bypassPermissions', () => {
    expect(parseMode('yolo')).toEqual({ ok: true, value: 'bypassPermissions' });
  });

  for (const bad of ['auto_edit', 'Default', 'BYPASSPERMISSIONS', '', 'auto', 42, null, undefined]) {
    it(`refuses ${JSON.stringify(bad)} with permissions.invalid_mode`, () => {
      const result = parseMode(bad);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('permissions.invalid_mode');
    });
  }
});
