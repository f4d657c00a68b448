/**
 * The recipient's questions of the guided `orders place`, each asked only when its answer is missing,
 * and asked again, alone, when the service refuses the answer given.
 */
import type { Prompter } from '../../core/prompter.js';
import * as validate from '../../api/checks.js';
import { LIMITS, lengthRule, promptRule } from '../fields.js';
import type { Draft } from './request.js';

/** One recipient question: whether the draft already holds its answer, and how to ask for it. */
interface Question {
  given(draft: Draft): boolean;
  /** `again`: the service refused the answer given before (a postal code is then required, not optional) */
  ask(prompter: Prompter, draft: Draft, again: boolean): Promise<void>;
}

/** The recipient's questions in the order asked, keyed by the request field each answers (as errors[] names it). */
const RECIPIENT_QUESTIONS: Record<string, Question> = {
  'recipient.name': {
    given: (draft) => draft.recipient.name !== undefined,
    ask: async (prompter, draft) => {
      draft.recipient.name = await prompter.input('Recipient name', { required: true, validate: lengthRule(LIMITS.recipientName) });
    },
  },
  'recipient.phone': {
    given: (draft) => draft.recipient.phone !== undefined,
    ask: async (prompter, draft) => {
      draft.recipient.phone = await prompter.input('Phone (E.164, e.g. +4915112345678)', {
        required: true,
        validate: (text) => promptRule(() => validate.e164(text, 'phone')),
      });
    },
  },
  'recipient.address.street': {
    given: (draft) => draft.recipient.address.street !== undefined,
    ask: async (prompter, draft) => {
      draft.recipient.address.street = await prompter.input('Street and number', { required: true, validate: lengthRule(LIMITS.street) });
    },
  },
  'recipient.address.city': {
    given: (draft) => draft.recipient.address.city !== undefined,
    ask: async (prompter, draft) => {
      draft.recipient.address.city = await prompter.input('City', { required: true, validate: lengthRule(LIMITS.city) });
    },
  },
  'recipient.address.postalCode': {
    given: (draft) => draft.recipient.address.postalCode !== undefined,
    ask: async (prompter, draft, again) => {
      const { address } = draft.recipient;
      const message = again ? `Postal code (${address.country} uses them)` : `Postal code (leave empty if ${address.country} has none)`;
      address.postalCode = emptyToUndefined(await prompter.input(message, { required: again, validate: lengthRule(LIMITS.postalCode) }));
    },
  },
  'recipient.email': {
    given: (draft) => draft.recipient.email !== undefined,
    ask: async (prompter, draft) => {
      draft.recipient.email = emptyToUndefined(
        await prompter.input('E-mail for status updates (optional)', { validate: (text) => text === '' || promptRule(() => validate.email(text, 'e-mail')) }),
      );
    },
  },
};

export async function askRecipient(prompter: Prompter, draft: Draft): Promise<void> {
  for (const question of Object.values(RECIPIENT_QUESTIONS)) if (!question.given(draft)) await question.ask(prompter, draft, false);
}

/** Whether every field the service refused is one the walk can ask again. */
export function canAskAgain(fields: readonly string[]): boolean {
  return fields.length > 0 && fields.every((field) => Object.hasOwn(RECIPIENT_QUESTIONS, field));
}

/**
 * Asks again only for the fields the service refused (errors[] names them), each once, in the walk's
 * order; every other answer in the draft stays as it was.
 */
export async function askAgain(prompter: Prompter, draft: Draft, fields: readonly string[]): Promise<void> {
  for (const [field, question] of Object.entries(RECIPIENT_QUESTIONS)) if (fields.includes(field)) await question.ask(prompter, draft, true);
}

function emptyToUndefined(value: string): string | undefined {
  return value.trim() === '' ? undefined : value;
}
