/** Longest tool name accepted; MCP names (`mcp__<server>__<tool>`) stay far below it. */
export const MAX_TOOL_NAME_LENGTH = 512;

/**
 * Characters no tool name may hold, because they show differently from what they are or not at
 * all: every control character (C0, DEL, C1), format characters (zero-width, bidi marks, soft
 * hyphen, BOM, tags), every space but U+0020 (U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F,
 * U+3000), line and paragraph separators, default-ignorable code points (variation selectors,
 * Hangul fillers), the braille blank, lone surrogates, private-use and unassigned code points.
 */
const UNSHOWN =
  /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800]|(?! )[\p{Zs}\p{White_Space}]/u;

/**
 * Why `name` is not a tool name that can be read exactly, or `undefined` when it is one
 * (docs/permissions.md, "Tool names"). A name is refused when it is empty, longer than
 * {@link MAX_TOOL_NAME_LENGTH}, starts or ends with a space, or holds a character of
 * {@link UNSHOWN}: `Bash ` and `Bash\u200b` are not `Bash`, and no reader may be led to think so.
 */
export function toolNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return 'a tool name must be a string';
  if (name.length === 0) return 'the tool name is empty';
  if (name.length > MAX_TOOL_NAME_LENGTH)
    return `the tool name is longer than ${MAX_TOOL_NAME_LENGTH} characters`;
  if (name.startsWith(' ') || name.endsWith(' ')) return 'the tool name starts or ends with a space';
  const found = UNSHOWN.exec(name);
  if (found) {
    const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `the tool name holds U+${code} at index ${found.index}, a control, invisible or space character`;
  }
  return undefined;
}
