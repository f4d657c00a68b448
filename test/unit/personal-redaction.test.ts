import { describe, expect, it } from 'vitest';
import { redactPersonal } from '../../src/core/secrets.js';

describe('redactPersonal: a player\'s data out of --debug bodies', () => {
  it('replaces names, e-mail, phone, address, messages and custom-field answers in JSON; keeps the rest', () => {
    const body = JSON.stringify({
      id: 'l1',
      name: 'Lucky Star Casino',
      fullName: 'Ada Lovelace',
      email: 'ada@example.com',
      message: 'Happy birthday',
      customFields: [
        { fieldId: 'f1', textValue: 'Gold', checked: null },
        { fieldId: 'f2', textValue: null, checked: true },
      ],
      recipient: { name: 'Ada Lovelace', phone: '+4915112345678', address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
      additionalDetails: 'ring twice',
      coinPrice: '1200',
    });
    expect(redactPersonal(body)).toBe(
      '{"id":"l1","name":"Lucky Star Casino","fullName":"[redacted]","email":"[redacted]","message":"[redacted]",' +
        '"customFields":[{"fieldId":"f1","textValue":"[redacted]","checked":null},{"fieldId":"f2","textValue":null,"checked":"[redacted]"}],' +
        '"recipient":"[redacted]","additionalDetails":"[redacted]","coinPrice":"1200"}',
    );
  });

  it('redacts inside event data and lists', () => {
    expect(redactPersonal('{"items":[{"type":"link.created","data":{"id":"l1","fullName":"Ada","email":"a@b.co"}}],"nextCursor":null}')).toBe(
      '{"items":[{"type":"link.created","data":{"id":"l1","fullName":"[redacted]","email":"[redacted]"}}],"nextCursor":null}',
    );
  });

  it('redacts the same members in text that is not whole JSON (a body cut short)', () => {
    expect(redactPersonal('{"id":"x","fullName":"Ada \\"L\\"","email":"a@b","recipient":{"name":"Ada","address":{"city":"B"}},"message":"hel')).toBe(
      '{"id":"x","fullName":"[redacted]","email":"[redacted]","recipient":"[redacted]","message":"[redacted]"',
    );
    expect(redactPersonal('not json')).toBe('not json');
  });
});
