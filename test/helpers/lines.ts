/** svc's JSON-lines output, a value a line. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read by assertions
export const jsonLines = (text: string): any[] => text.split('\n').filter(Boolean).map((line) => JSON.parse(line));

/** The note svc prints when the service answers a request with the response stored for its Idempotency-Key. */
export const replayedNote = (idempotencyKey: string) =>
  `note: replayed: the service returned the stored response for Idempotency-Key ${idempotencyKey}; nothing ran twice\n`;
