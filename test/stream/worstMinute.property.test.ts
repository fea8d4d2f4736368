/**
 * The host program's worst minute (issue 26), as a property over random builder programs: huge
 * texts, executors that throw anything (a huge message, a non-Error, a throwing getter), stops at
 * random points (the app's stop, the session closing). Whatever the program does, every
 * `tool-call-start` gets exactly one `tool-call-end`, every turn one end, the stream validates,
 * every `run()` resolves, and no builder call throws except the documented programming errors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import { MAX_END_TEXT_BYTES } from 'happy-session/internal';
import { PermissionGate, loadShellParser } from 'happy-session/permissions';
import type { SessionMessage, Scope, ToolCall, Turn } from 'happy-session';
import { expectV2Invariants } from '../helpers/invariants.js';
import { memorySession } from '../helpers/memorySession.js';

const shell = await loadShellParser();

/** A text: short, or a huge one described by what it repeats (so that a counterexample prints short). */
type Text = string | { readonly repeat: string; readonly times: number };

/** Texts from none to twice a record, some of characters JSON writes wide. */
const textArb: fc.Arbitrary<Text> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    { repeat: 'x', times: 2_000_000 },
    { repeat: 'é', times: 700_000 },
    { repeat: '\u0001', times: 300_000 },
    { repeat: '😀', times: 400_000 },
    { repeat: 'line\n', times: 250_000 },
  ),
);

function textOf(text: Text): string {
  return typeof text === 'string' ? text : text.repeat.repeat(text.times);
}

/** What an executor or a step body throws, made when thrown (fast-check cannot print a revoked proxy). */
const thrownArb: fc.Arbitrary<() => unknown> = fc.oneof(
  textArb.map((text) => () => new Error(textOf(text))),
  fc.constantFrom<() => unknown>(
    () => 42,
    () => undefined,
    () => null,
    () => ({ reason: 'an object' }),
    () => ({
      get message(): string {
        throw new Error('the getter throws');
      },
    }),
    () => {
      const error = new Error('x');
      Object.defineProperty(error, 'message', {
        get() {
          throw new Error('the message getter throws');
        },
      });
      return error;
    },
    () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
  ),
);

type Op =
  | { op: 'turn' }
  | { op: 'text'; pick: number; text: Text }
  | { op: 'run'; pick: number; outcome: 'value' | 'throw' | 'throwLate'; thrown: () => unknown }
  | { op: 'call'; pick: number }
  | { op: 'endCall'; pick: number; error: Text | undefined; twice: boolean }
  | { op: 'endTurn'; pick: number }
  | { op: 'step'; pick: number; thrown: (() => unknown) | undefined }
  | { op: 'abort'; pick: number }
  | { op: 'close' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constant({ op: 'turn' as const }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('text' as const), pick: fc.nat(), text: textArb }), weight: 3 },
  {
    arbitrary: fc.record({
      op: fc.constant('run' as const),
      pick: fc.nat(),
      outcome: fc.constantFrom('value' as const, 'throw' as const, 'throwLate' as const),
      thrown: thrownArb,
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant('call' as const), pick: fc.nat() }), weight: 2 },
  {
    arbitrary: fc.record({
      op: fc.constant('endCall' as const),
      pick: fc.nat(),
      error: fc.option(textArb, { nil: undefined }),
      twice: fc.boolean(),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ op: fc.constant('endTurn' as const), pick: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      op: fc.constant('step' as const),
      pick: fc.nat(),
      thrown: fc.option(thrownArb, { nil: undefined }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant('abort' as const), pick: fc.nat() }), weight: 1 },
  { arbitrary: fc.constant({ op: 'close' as const }), weight: 1 },
);

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

/**
 * The programming errors a builder may throw, and when: writing to a turn the program ended
 * itself, or into the scope of a call it ended (never after a stop); text too large for a record;
 * a turn after the writer closed.
 */
function expectDocumentedThrow(error: unknown, op: Op): void {
  const allowed: Record<string, readonly string[]> = {
    turn: ['stream.closed'],
    text: ['stream.turn_ended', 'stream.scope_closed', 'stream.too_large'],
    call: ['stream.turn_ended', 'stream.scope_closed'],
    run: ['stream.turn_ended', 'stream.scope_closed'],
    step: ['stream.turn_ended', 'stream.scope_closed'],
  };
  expect(isSdkError(error), String(error)).toBe(true);
  expect(allowed[op.op] ?? [], `${op.op} threw ${String(error)}`).toContain((error as { code: string }).code);
}

async function program(ops: readonly Op[]): Promise<{ stored: SessionMessage[]; calls: ToolCall[] }> {
  const { writer, reader } = memorySession();
  const gate = await PermissionGate.create({ writer, shell, mode: 'bypassPermissions' });
  const turns: Turn[] = [];
  const calls: ToolCall[] = [];
  const settling: Promise<unknown>[] = [];
  let closing: Promise<void> | undefined;
  // Every scope ever opened, the ended ones too: a program may write anywhere.
  const scopes = (): Scope[] => [...turns, ...calls.map((c) => c.scope())];
  for (const o of ops) {
    try {
      switch (o.op) {
        case 'turn':
          turns.push(writer.turn());
          break;
        case 'text':
          pick(scopes(), o.pick)?.text(textOf(o.text));
          break;
        case 'call': {
          const scope = pick(scopes(), o.pick);
          if (scope) calls.push(scope.toolCall({ toolName: 'Bash', args: { command: 'make' } }));
          break;
        }
        case 'run': {
          const scope = pick(scopes(), o.pick);
          if (!scope) break;
          const call = scope.toolCall({ toolName: 'Bash', args: { command: 'make' } });
          calls.push(call);
          const ran = call.run(async () => {
            if (o.outcome === 'throwLate') await Promise.resolve();
            if (o.outcome !== 'value') throw o.thrown();
            return 'done';
          });
          // run() resolves with its outcome, whatever the executor threw.
          settling.push(ran.then((result) => expect(result.status).toMatch(/^(done|failed|cancelled)$/)));
          break;
        }
        case 'endCall': {
          const call = pick(calls, o.pick);
          if (!call || call.ended) break;
          const error = o.error === undefined ? undefined : textOf(o.error);
          const first = call.end(error === undefined ? {} : { error });
          if (o.twice) expect(call.end({ error: 'again' })).toBe(first);
          // The program keeps the whole text; the record holds what fits.
          if (error !== undefined && call.error !== 'cancelled') expect(call.error === error).toBe(true);
          settling.push(first.catch(() => undefined));
          break;
        }
        case 'endTurn':
          pick(turns, o.pick)?.end();
          break;
        case 'step': {
          const scope = pick(scopes(), o.pick);
          if (!scope) break;
          settling.push(
            scope
              .step('s', async (inner) => {
                inner.text('in step');
                if (o.thrown !== undefined) throw o.thrown();
              })
              .catch(() => undefined),
          );
          break;
        }
        case 'abort':
          pick(turns, o.pick)?.abort();
          break;
        case 'close':
          closing ??= writer.close();
          break;
      }
    } catch (error) {
      expectDocumentedThrow(error, o);
    }
  }
  await (closing ?? writer.close());
  await Promise.all(settling);
  gate.dispose();
  return { stored: await reader.messages(), calls };
}

describe('the worst minute (fast-check)', () => {
  it('huge texts, throwing executors and random stops: one end per call and per turn, a valid stream, only documented throws', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 30 }), async (ops) => {
        const { stored } = await program(ops);
        expectV2Invariants(stored);
        const starts = stored.filter((m) => m.type === 'tool-call-start').map((m) => m.callId);
        const ends = stored.filter((m) => m.type === 'tool-call-end').map((m) => m.callId);
        expect([...ends].sort()).toEqual([...starts].sort());
        const turnStarts = stored.filter((m) => m.type === 'turn-start').map((m) => m.turn);
        const turnEnds = stored.filter((m) => m.type === 'turn-end').map((m) => m.turn);
        expect([...turnEnds].sort()).toEqual([...turnStarts].sort());
        for (const m of stored) {
          if (m.type !== 'tool-call-end' || m.error === undefined) continue;
          expect(new TextEncoder().encode(JSON.stringify(m.error)).length).toBeLessThan(
            MAX_END_TEXT_BYTES + 1024,
          );
        }
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});
