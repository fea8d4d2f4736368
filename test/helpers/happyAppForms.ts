/**
 * A test-side model of how today's Happy app reads the agent's questions from agentState
 * (`communications` / `completedCommunications`, docs/questions.md, "In today's app"). Written from
 * the app's field names and rules (no app code): a pending form is a `kind: 'form'` entry with
 * answerable questions and no completed entry of the same id; a question counts as answerable when
 * it offers options or `allowCustom` is not false; `required: false` may be left empty.
 */

/** One option as the app shows it. */
export interface AppFormOption {
  readonly label: string;
  readonly description?: string;
}

/** One question as the app shows it. */
export interface AppFormQuestion {
  readonly id: string;
  readonly header: string;
  readonly question: string;
  readonly options: readonly AppFormOption[];
  readonly multiSelect: boolean;
  /** The app offers a text field unless this is false. */
  readonly allowCustom: boolean;
  readonly required: boolean;
}

/** A form as the app shows it: the banner's pending form, or the answered card. */
export interface AppForm {
  readonly id: string;
  readonly createdAt: number;
  readonly toolUseId?: string;
  readonly title?: string;
  readonly questions: readonly AppFormQuestion[];
  readonly status: 'pending' | 'answered' | 'cancelled';
  readonly answers?: Readonly<Record<string, { options: string[]; custom?: string }>>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function questionsOf(entry: Record<string, unknown>): AppFormQuestion[] {
  const form = isObject(entry.form) ? entry.form : {};
  const list = Array.isArray(form.questions) ? form.questions : [];
  const out: AppFormQuestion[] = [];
  for (const q of list) {
    // The app's schema: id, header and question are strings; options default to [].
    if (
      !isObject(q) ||
      typeof q.id !== 'string' ||
      typeof q.header !== 'string' ||
      typeof q.question !== 'string'
    )
      return [];
    const options = (Array.isArray(q.options) ? q.options : []).filter(isObject).map((o) => ({
      label: String(o.label),
      ...(typeof o.description === 'string' ? { description: o.description } : {}),
    }));
    const question: AppFormQuestion = {
      id: q.id,
      header: q.header,
      question: q.question,
      options,
      multiSelect: q.multiSelect === true,
      allowCustom: q.allowCustom !== false,
      required: q.required !== false,
    };
    if (question.options.length > 0 || question.allowCustom) out.push(question);
  }
  return out;
}

/** The forms the app shows for `agentState`: pending ones (oldest first), then completed ones. */
export function appForms(agentState: unknown): { pending: AppForm[]; completed: AppForm[] } {
  const state = isObject(agentState) ? agentState : {};
  const communications = isObject(state.communications) ? state.communications : {};
  const completedCommunications = isObject(state.completedCommunications)
    ? state.completedCommunications
    : {};
  const base = (id: string, entry: Record<string, unknown>) => ({
    id,
    createdAt: typeof entry.createdAt === 'number' ? entry.createdAt : 0,
    ...(typeof entry.toolUseId === 'string' ? { toolUseId: entry.toolUseId } : {}),
    ...(typeof entry.title === 'string' ? { title: entry.title } : {}),
  });
  const pending: AppForm[] = [];
  for (const [id, entry] of Object.entries(communications)) {
    if (!isObject(entry) || entry.kind !== 'form' || completedCommunications[id] !== undefined) continue;
    const questions = questionsOf(entry);
    if (questions.length > 0) pending.push({ ...base(id, entry), questions, status: 'pending' });
  }
  const completed: AppForm[] = [];
  for (const [id, entry] of Object.entries(completedCommunications)) {
    if (!isObject(entry) || entry.kind !== 'form') continue;
    if (entry.status !== 'answered' && entry.status !== 'cancelled') continue;
    completed.push({
      ...base(id, entry),
      questions: questionsOf(entry),
      status: entry.status,
      ...(isObject(entry.answers) ? { answers: entry.answers as AppForm['answers'] } : {}),
    });
  }
  return { pending: pending.sort((a, b) => a.createdAt - b.createdAt), completed };
}
