import { z } from 'zod';

/**
 * What a nested `happy-session run` sends the outer one over its local socket, one JSON object a
 * line (docs/cli.md, "Nesting"). Every request has a `seq`; the outer answers each with an `ack`
 * of the same `seq` once it has written what the request asked for.
 */
export const RunRequestSchema = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('start'),
    seq: z.number().int(),
    token: z.string(),
    id: z.string().min(1).max(64),
    parent: z.string().min(1).max(64),
    title: z.string().max(10_000),
    command: z.array(z.string()).min(1),
    cwd: z.string(),
    ask: z.boolean(),
  }),
  z.object({ t: z.literal('output'), seq: z.number().int(), id: z.string(), text: z.string() }),
  z.object({ t: z.literal('attach'), seq: z.number().int(), id: z.string(), path: z.string().min(1) }),
  z.object({
    t: z.literal('exit'),
    seq: z.number().int(),
    id: z.string(),
    code: z.number().int().nullable(),
    signal: z.string().nullable(),
    spawnError: z.string().optional(),
  }),
]);

export type RunRequest = z.infer<typeof RunRequestSchema>;

/** Distributes Omit over the union, so each request keeps its own fields. */
export type RunRequestBody = RunRequest extends infer R
  ? R extends unknown
    ? Omit<R, 'seq'>
    : never
  : never;

/** The outer run's answer to one request. */
export const RunAckSchema = z.object({
  t: z.literal('ack'),
  seq: z.number().int(),
  /** Set when the request was refused (an unknown parent, a bad token, ...). */
  error: z.string().optional(),
  /** For a `start` with `ask`: the permission decision. */
  decision: z.enum(['allow', 'deny', 'cancelled']).optional(),
});

export type RunAck = z.infer<typeof RunAckSchema>;
