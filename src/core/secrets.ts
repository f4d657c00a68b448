/**
 * Players' personal data stays out of logs (API keys and webhook secrets: api/keys.ts).
 *
 * Members that carry a player's personal data, in requests, responses and events: names, e-mail,
 * phone, the postal address, messages and custom-field answers (`textValue`, `checked`).
 * `recipient` and `address` are replaced whole. Other members (ids, statuses, prices) stay readable.
 */
const PERSONAL_FIELDS = new Set([
  'recipient',
  'fullName',
  'playerName',
  'name',
  'email',
  'phone',
  'address',
  'street',
  'city',
  'postalCode',
  'additionalDetails',
  'message',
  'textValue',
  'checked',
]);

/** `name` is a player's only inside these objects; elsewhere it is a brand's, campaign's or key's name. */
const NAMED_PARENTS = new Set(['recipient', 'player']);

/**
 * A body with every personal member replaced by "[redacted]". JSON is walked member by member; text
 * that is not whole JSON (cut short, or another format) has the same members replaced where they
 * appear as `"member": value`.
 */
export function redactPersonal(body: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.replace(RECIPIENT_OBJECT, '"recipient":"[redacted]"').replace(PERSONAL_MEMBER, (_match, name: string) => `"${name}":"[redacted]"`);
  }
  return JSON.stringify(redactValue(parsed, ''));
}

function redactValue(value: unknown, parent: string): unknown {
  if (Array.isArray(value)) return value.map((item) => redactValue(item, parent));
  if (value === null || typeof value !== 'object') return value;
  // Defined, not assigned: a `__proto__` member stays a member of the copy.
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => {
      const personal = key === 'name' ? NAMED_PARENTS.has(parent) : PERSONAL_FIELDS.has(key);
      return [key, personal && member !== null ? '[redacted]' : redactValue(member, key)];
    }),
  );
}

/** `"member": "string" | number | true | false` for the personal members (not `name`: text has no parent to tell). */
const PERSONAL_MEMBER = new RegExp(
  `"(${[...PERSONAL_FIELDS].filter((name) => name !== 'name').join('|')})"\\s*:\\s*(?:"(?:[^"\\\\]|\\\\.)*"?|-?[0-9.eE+-]+|true|false)`,
  'g',
);

/** A `"recipient": {…}` object (with its nested address), or what is left of it in text cut short. */
const RECIPIENT_OBJECT = /"recipient"\s*:\s*\{(?:[^{}]|\{[^{}]*\}?)*\}?/g;
