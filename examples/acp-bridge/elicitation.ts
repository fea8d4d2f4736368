// An ACP agent's elicitation (`elicitation/create`, form mode) asked of the person with
// `turn.ask()`, and answered with the ACP outcome: accept with the content, decline when the person
// dismissed it, cancel when the turn was stopped or the question expired.
// In your project, import from 'happy-session' instead of ../../src.
import type * as acp from '@agentclientprotocol/sdk';
import type { AskQuestion, AskResult, QuestionAnswer, Scope } from 'happy-session';

/** How one form field was turned into a question, to read its answer back as the field's value. */
interface Field {
  readonly key: string;
  readonly question: AskQuestion;
  /** Option label → the value the agent gets. */
  readonly values: ReadonlyMap<string, string | boolean>;
  readonly kind: 'string' | 'number' | 'integer' | 'boolean' | 'array';
}

const CANCEL: acp.CreateElicitationResponse = { action: 'cancel' };

/** The questions of an elicitation's form: one per property, in the schema's order. */
export function fieldsOf(request: acp.CreateElicitationRequest): Field[] {
  const form = 'requestedSchema' in request ? (request.requestedSchema as acp.ElicitationSchema) : undefined;
  const required = new Set(form?.required ?? []);
  return Object.entries(form?.properties ?? {}).map(([key, property]) => {
    const p = property as Record<string, unknown> & { type: string };
    const header = typeof p.title === 'string' ? p.title : key;
    const question = typeof p.description === 'string' && p.description !== '' ? p.description : header;
    const values = new Map<string, string | boolean>();
    const enumOf = (list: unknown, titled: unknown): void => {
      for (const value of Array.isArray(list) ? (list as string[]) : []) values.set(value, value);
      for (const option of Array.isArray(titled) ? (titled as acp.EnumOption[]) : [])
        values.set(option.title, option.const);
    };
    let kind: Field['kind'] = 'string';
    let multiSelect = false;
    if (p.type === 'boolean') {
      kind = 'boolean';
      values.set('Yes', true).set('No', false);
    } else if (p.type === 'array') {
      kind = 'array';
      multiSelect = true;
      const items = (p.items ?? {}) as Record<string, unknown>;
      enumOf(items.enum, items.anyOf);
    } else if (p.type === 'number' || p.type === 'integer') kind = p.type;
    else enumOf(p.enum, p.oneOf);
    return {
      key,
      kind,
      values,
      question: {
        id: key,
        header,
        question,
        options: [...values.keys()],
        multiSelect,
        // A field without choices is written by the person.
        allowCustom: values.size === 0,
        required: required.has(key),
      },
    };
  });
}

/** The ACP content of an answer: each field's value in its schema's type. */
function contentOf(
  fields: readonly Field[],
  answers: Readonly<Record<string, QuestionAnswer>>,
): Record<string, acp.ElicitationContentValue> {
  const content: Record<string, acp.ElicitationContentValue> = {};
  for (const field of fields) {
    const answer = answers[field.key];
    if (!answer) continue;
    const picked = answer.options.map((label) => field.values.get(label)).filter((v) => v !== undefined);
    if (field.kind === 'array') content[field.key] = picked.map(String);
    else if (field.kind === 'boolean' && typeof picked[0] === 'boolean') content[field.key] = picked[0];
    else if (field.kind === 'number' || field.kind === 'integer') {
      const n = Number(answer.custom);
      if (
        answer.custom !== undefined &&
        Number.isFinite(n) &&
        (field.kind === 'number' || Number.isInteger(n))
      )
        content[field.key] = n;
    } else if (picked.length > 0) content[field.key] = String(picked[0]);
    else if (answer.custom !== undefined) content[field.key] = answer.custom;
  }
  return content;
}

/** The ACP outcome of how the question ended. */
export function outcomeOf(fields: readonly Field[], result: AskResult): acp.CreateElicitationResponse {
  if (result.status === 'answered') return { action: 'accept', content: contentOf(fields, result.answers) };
  if (result.status === 'cancelled') return { action: 'decline' };
  return CANCEL;
}

/**
 * Asks an elicitation's form in `scope` and answers the agent. A URL-mode elicitation (or a form
 * with no field the person could answer) is declined: the viewer and today's app show forms only.
 * Aborting `signal` (the agent gave up) cancels the question.
 */
export async function answerElicitation(
  scope: Scope,
  request: acp.CreateElicitationRequest,
  signal?: AbortSignal,
): Promise<acp.CreateElicitationResponse> {
  if (request.mode !== 'form') return { action: 'decline' };
  const fields = fieldsOf(request);
  if (fields.length === 0) return { action: 'decline' };
  try {
    const result = await scope.ask(
      fields.map((f) => f.question),
      { title: request.message, ...(signal ? { signal } : {}) },
    );
    return outcomeOf(fields, result);
  } catch {
    // The form could not be asked (its turn ended, or a field the desk refuses): nobody can answer.
    return CANCEL;
  }
}
