import { describe, expect, it } from 'vitest';
import { DEFAULT_PERMISSION_OPTIONS, validateOptions } from 'happy-session/permissions';
import { findOptionByKind } from '../../packages/sdk/src/policy/options.js';

describe('DEFAULT_PERMISSION_OPTIONS', () => {
  it('are the four options of the protocol document, with its ids', () => {
    expect(DEFAULT_PERMISSION_OPTIONS).toEqual([
      { id: 'allow-once', label: 'Allow once', kind: 'allow-once' },
      { id: 'allow-session', label: 'Allow for session', kind: 'allow-always' },
      { id: 'deny', label: 'Deny', kind: 'reject-once' },
      { id: 'deny-always', label: 'Always deny', kind: 'reject-always' },
    ]);
  });

  it('validate', () => {
    expect(validateOptions(DEFAULT_PERMISSION_OPTIONS).ok).toBe(true);
  });

  it('cannot be mutated by a host', () => {
    expect(Object.isFrozen(DEFAULT_PERMISSION_OPTIONS)).toBe(true);
    expect(Object.isFrozen(DEFAULT_PERMISSION_OPTIONS[0])).toBe(true);
  });
});

describe('validateOptions', () => {
  it('accepts custom ids and labels with protocol kinds', () => {
    const result = validateOptions([
      { id: 'proceed_once', label: 'Yes', kind: 'allow-once' },
      { id: 'no', label: 'No', kind: 'reject-once' },
    ]);
    expect(result).toEqual({
      ok: true,
      value: [
        { id: 'proceed_once', label: 'Yes', kind: 'allow-once' },
        { id: 'no', label: 'No', kind: 'reject-once' },
      ],
    });
  });

  const reject = { id: 'no', label: 'No', kind: 'reject-once' };
  const cases: [string, unknown, string][] = [
    ['a non-array', { id: 'x' }, 'permissions.options_not_array'],
    ['an empty list', [], 'permissions.options_empty'],
    ['a non-object option', ['allow-once', reject], 'permissions.invalid_option'],
    ['an empty id', [{ id: '', label: 'x', kind: 'allow-once' }, reject], 'permissions.invalid_option'],
    [
      'an id with spaces',
      [{ id: 'allow once', label: 'x', kind: 'allow-once' }, reject],
      'permissions.invalid_option',
    ],
    [
      'an id too long',
      [{ id: 'a'.repeat(129), label: 'x', kind: 'allow-once' }, reject],
      'permissions.invalid_option',
    ],
    ['a blank label', [{ id: 'a', label: '  ', kind: 'allow-once' }, reject], 'permissions.invalid_option'],
    [
      'the ACP spelling of a kind',
      [{ id: 'a', label: 'A', kind: 'allow_once' }, reject],
      'permissions.option_kind_unknown',
    ],
    [
      'an ACP custom kind',
      [{ id: 'a', label: 'A', kind: '_maybe' }, reject],
      'permissions.option_kind_unknown',
    ],
    [
      'a duplicate id',
      [{ id: 'no', label: 'Yes', kind: 'allow-once' }, reject],
      'permissions.option_id_duplicate',
    ],
    ['no reject option', [{ id: 'a', label: 'A', kind: 'allow-once' }], 'permissions.options_no_reject'],
    [
      'too many options',
      Array.from({ length: 17 }, (_, i) => ({ id: `o${i}`, label: 'x', kind: 'reject-once' })),
      'permissions.invalid_option',
    ],
  ];
  for (const [name, input, code] of cases) {
    it(`refuses ${name} with ${code}`, () => {
      const result = validateOptions(input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe(code);
    });
  }
});

describe('findOptionByKind', () => {
  it('finds by kind, not by id or label', () => {
    const options = [
      { id: 'r1', label: 'Reject once', kind: 'reject-once' as const },
      { id: 'a2', label: 'Allow', kind: 'allow-always' as const },
      { id: 'a1', label: 'Allow', kind: 'allow-once' as const },
    ];
    expect(findOptionByKind(options, 'allow-once')?.id).toBe('a1');
    expect(findOptionByKind(options, 'reject-always')).toBeUndefined();
  });
});
