import * as z from '../zod.js';
import { agentBaseShape, userBaseShape } from './base.js';

/**
 * The question records, an extension of this SDK (docs/questions.md, "In the stream"): the agent
 * asks one or more questions (`question`) and closes them once (`question-end`), with the person's
 * answers or the reason there are none. Field names follow today's Happy app's forms
 * (`agentState.communications`, docs/questions.md, "In today's app"), so one shape serves both.
 */

/** One choice of a question: the label is what an answer names. */
export const QuestionOptionSchema = z.object({
  label: z.string().check(z.minLength(1)),
  description: z.optional(z.string()),
});

/**
 * One question. Single choice by default; `multiSelect` lets the person pick several options;
 * `allowCustom` lets them write their own text (a question without options is free text); an
 * unanswered question is refused unless `required: false`.
 */
export const QuestionSchema = z.object({
  id: z.string().check(z.minLength(1)),
  /** A short label (a chip, a card's heading). */
  header: z.string(),
  question: z.string().check(z.minLength(1)),
  options: z.array(QuestionOptionSchema),
  multiSelect: z.optional(z.boolean()),
  allowCustom: z.optional(z.boolean()),
  required: z.optional(z.boolean()),
});

/** The answer to one question: the labels picked, and the person's own text when they wrote one. */
export const QuestionAnswerSchema = z.object({
  options: z.array(z.string()),
  custom: z.optional(z.string()),
});

/** How a question ended: answered, dismissed by the person, expired, or stopped with its turn. */
export const QuestionEndStatusSchema = z.enum(['answered', 'cancelled', 'timed_out', 'stopped']);

/** `question`: the agent asks the person and waits for one answer. */
export const QuestionMessageSchema = z.object({
  ...agentBaseShape,
  type: z.literal('question'),
  /** What answers name (the app's communication id). */
  questionId: z.string().check(z.minLength(1)),
  title: z.optional(z.string()),
  questions: z.array(QuestionSchema).check(z.minLength(1)),
});

/** `question-end`: the agent's one record of how a question ended, with the answers it applied. */
export const QuestionEndMessageSchema = z.object({
  ...agentBaseShape,
  type: z.literal('question-end'),
  questionId: z.string().check(z.minLength(1)),
  status: QuestionEndStatusSchema,
  /** By question id; present when `status` is `answered`. */
  answers: z.optional(z.record(z.string(), QuestionAnswerSchema)),
  /**
   * The channel the answer came by, when a person answered or dismissed it: the app's RPC, the
   * local program, or the person's own `question-answer` record in the stream.
   */
  via: z.optional(z.enum(['rpc', 'local', 'stream'])),
});

/**
 * `question-answer` (extension): a person's answer to a question, written in the stream by a client
 * (the viewer, the CLI) so it reaches the agent even when no agent answers the RPC; the agent
 * applies the first valid one and records its `question-end` (docs/questions.md, "Answering").
 */
export const QuestionAnswerMessageSchema = z.object({
  ...userBaseShape,
  type: z.literal('question-answer'),
  questionId: z.string().check(z.minLength(1)),
  status: z.enum(['answered', 'cancelled']),
  /** By question id; present when `status` is `answered`. */
  answers: z.optional(z.record(z.string(), QuestionAnswerSchema)),
});
