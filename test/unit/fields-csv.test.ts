import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { defaultColumns, fieldPaths } from '../../src/api/resource-fields.js';
import { parseFieldList, project, resolveCustomFields, valueAt } from '../../src/core/field-paths.js';
import { IO } from '../../src/core/io.js';
import { Output, csvCell, type Format } from '../../src/core/output.js';
import { testTerminal } from '../helpers/terminal.js';

function output(format: Format, fields?: string[], tty = false) {
  const terminal = testTerminal({ tty: { stdout: tty } });
  const result = new Output(new IO(terminal.streams), format, Chalk, fields);
  return { output: result, text: async () => (await terminal.settled(), terminal.stdout) };
}

const order = (id: string, name: string, reference: string) => ({ id, reference, status: 'SENT', coinPrice: '1100', currency: { name, symbol: '★' }, shipment: null });

describe('--fields', () => {
  it('accepts known dotted paths in order, without repeats; an unknown field names the valid ones', () => {
    expect(parseFieldList(' id, currency.name ,status,id', fieldPaths('order'), 'order')).toEqual(['id', 'currency.name', 'status']);
    expect(() => parseFieldList('id,nope,currency.code', fieldPaths('order'), 'order')).toThrow(
      `--fields: unknown fields nope, currency.code; valid fields of order: ${fieldPaths('order').join(', ')}`,
    );
    expect(() => parseFieldList(' , ', fieldPaths('link'), 'link')).toThrow(/^--fields: no field given; valid fields of link: id, campaignId/);
    expect(fieldPaths('order')).toContain('shipment.trackingUrl');
    expect(fieldPaths('event')).toEqual(expect.arrayContaining(['data.id', 'data.brandId', 'data.currency.name', 'occurredAt']));
  });

  it('keeps the API nesting in JSON, null for a missing field, and never changes the object', () => {
    const item = order('o1', 'Coins', 'R-1');
    expect(project(item, ['currency.name', 'id', 'shipment.carrier', 'currency'])).toEqual({ currency: { name: 'Coins', symbol: '★' }, id: 'o1', shipment: { carrier: null } });
    expect(JSON.stringify(project(item, ['id', 'currency.name']))).toBe('{"id":"o1","currency":{"name":"Coins"}}');
    expect(item.currency).toEqual({ name: 'Coins', symbol: '★' });
    expect([valueAt(item, 'currency.symbol'), valueAt(item, 'shipment.carrier'), valueAt(item, 'id.x')]).toEqual(['★', undefined, undefined]);
  });
});

describe('-o csv', () => {
  it('guards every cell a spreadsheet would run as a formula', () => {
    expect(['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx', 'a=b', '', null].map(csvCell)).toEqual(["'=1+1", "'+1", "'-2", "'@SUM(A1)", "'\tx", "'\rx", 'a=b', '', '']);
  });

  it('writes an RFC 4180 header and rows page by page, quoting as needed', async () => {
    const { output: out, text } = output('csv', ['id', 'reference', 'currency.name']);
    await out.list([{ items: [order('o1', 'Coins, gold', 'R "1"')], nextCursor: 'c' }, { items: [order('o2', '=HYPERLINK("x")', 'line\nbreak')], nextCursor: null }], { columns: [], noun: 'orders' });
    expect(await text()).toBe('id,reference,currency.name\no1,"R ""1""","Coins, gold"\no2,"line\nbreak","\'=HYPERLINK(""x"")"\n');
  });

  it('without --fields uses the resource columns, nested objects spelled out; an empty list still has its header', async () => {
    const { output: out, text } = output('csv');
    await out.list([{ items: [], nextCursor: null }], { columns: [], noun: 'orders', csvColumns: ['id', 'currency.name'] });
    expect(await text()).toBe('id,currency.name\n');
    expect(defaultColumns('order')).toEqual(expect.arrayContaining(['currency.name', 'currency.symbol', 'shipment.carrier', 'customFields']));
    expect(defaultColumns('order')).not.toContain('currency');
  });

  it('on a terminal the rows and the header (the server\'s keys) go through the sanitizer; to a pipe they are exact', async () => {
    const hostile = 'A\u001b]0;pwned\u0007B\u009b2JC\u202eD\r';
    const item = { id: 'x', [hostile]: hostile };
    const terminal = output('csv', undefined, true);
    await terminal.output.object(item);
    expect(await terminal.text()).toBe('id,"A\\x1b]0;pwned\\x07B\\u009b2JC\\u202eD\\x0d"\nx,"A\\x1b]0;pwned\\x07B\\u009b2JC\\u202eD\\x0d"\n');
    const pipe = output('csv');
    await pipe.output.object(item);
    expect(await pipe.text()).toBe(`id,"${hostile}"\nx,"${hostile}"\n`);
  });

  it('one object: a header and one row', async () => {
    const { output: out, text } = output('csv');
    await out.object({ id: 'x', nested: { a: 1 }, list: [1, 2] });
    expect(await text()).toBe('id,nested.a,list\nx,1,"[1,2]"\n');
  });
});

describe('--fields in each format', () => {
  const pages = [{ items: [order('o1', 'Coins', 'R-1'), order('o2', 'Gems', 'R-2')], nextCursor: null }];

  it('jsonl and json: only the chosen keys, in order', async () => {
    const jsonl = output('jsonl', ['reference', 'currency.name']);
    await jsonl.output.list(pages, { columns: [], noun: 'orders' });
    expect(await jsonl.text()).toBe('{"reference":"R-1","currency":{"name":"Coins"}}\n{"reference":"R-2","currency":{"name":"Gems"}}\n');
    const json = output('json', ['id']);
    await json.output.list(pages, { columns: [], noun: 'orders' });
    expect(JSON.parse(await json.text())).toEqual([{ id: 'o1' }, { id: 'o2' }]);
    const one = output('jsonl', ['id', 'shipment']);
    await one.output.object(order('o3', 'Coins', 'R-3'));
    expect(await one.text()).toBe('{"id":"o3","shipment":null}\n');
  });

  it('table: the chosen fields are the columns, headed by their paths', async () => {
    const { output: out, text } = output('table', ['reference', 'currency.name']);
    await out.list(pages, { columns: [{ header: 'ID', value: (o) => o.id }], noun: 'orders' });
    // Cells only (the borders and widths are the table renderer's business).
    const rows = (await text()).split('\n').map((line) => line.replace(/[│┌┐└┘─┬┴├┤┼]/g, ' ').trim()).filter(Boolean).map((line) => line.split(/\s+/));
    expect(rows).toEqual([['reference', 'currency.name'], ['R-1', 'Coins'], ['R-2', 'Gems']]);
  });
});

describe('custom fields as columns', () => {
  const labels = [
    { id: 'AAAA-1', label: 'Player ID' },
    { id: 'bbbb-2', label: 'Consent' },
  ];
  const link = { id: 'l1', customFields: [{ fieldId: 'aaaa-1', textValue: '12345', checked: null }, { fieldId: 'BBBB-2', textValue: null, checked: false }] };

  it('field:LABEL and field:ID parse only where records hold answers, and resolve to field:<id> by id or label, ignoring case', () => {
    expect(parseFieldList('id, field: Player ID ,field:bbbb-2', fieldPaths('link'), 'a link', true)).toEqual(['id', 'field:Player ID', 'field:bbbb-2']);
    expect(() => parseFieldList('id,field:', fieldPaths('link'), 'a link', true)).toThrow(/^--fields: unknown field field:; valid fields of a link: id, .*, field:LABEL$/);
    expect(() => parseFieldList('field:Player ID', fieldPaths('campaign'), 'a campaign')).toThrow('--fields: unknown field field:Player ID; valid fields of a campaign: id, name, status, brandIds, expiresAt');
    expect(resolveCustomFields(['id', 'field:player id', 'field:BBBB-2', 'field:aaaa-1'], labels)).toEqual(['id', 'field:AAAA-1', 'field:bbbb-2']);
    expect(() => resolveCustomFields(['field:Tier'], labels)).toThrow('--fields: no custom field with id or label "Tier" (the account\'s fields: "Player ID", "Consent")');
    expect(() => resolveCustomFields(['field:Tier'], [])).toThrow('--fields: no custom field with id or label "Tier" (the account\'s fields: none)');
  });

  it('the value is the answer (text, or true/false), null when unanswered, undefined when the link has no such field', () => {
    expect(valueAt(link, 'field:AAAA-1')).toBe('12345');
    expect(valueAt(link, 'field:bbbb-2')).toBe(false);
    expect(valueAt({ customFields: [{ fieldId: 'x', textValue: null, checked: null }] }, 'field:x')).toBeNull();
    expect(valueAt(link, 'field:zzzz')).toBeUndefined();
    expect(project(link, ['id', 'field:AAAA-1', 'field:zzzz'], labels)).toEqual({ id: 'l1', 'Player ID': '12345', 'field:zzzz': null });
  });

  it('CSV: chosen custom fields are headed by their labels; without --fields the customFields cell becomes one column per field', async () => {
    const chosen = (() => {
      const terminal = testTerminal({ tty: { stdout: false } });
      const result = new Output(new IO(terminal.streams), 'csv', Chalk, ['id', 'field:AAAA-1', 'field:bbbb-2'], async () => labels);
      return { output: result, text: async () => (await terminal.settled(), terminal.stdout) };
    })();
    await chosen.output.list([{ items: [link], nextCursor: null }], { columns: [], noun: 'links' });
    expect(await chosen.text()).toBe('id,Player ID,Consent\nl1,12345,false\n');

    const terminal = testTerminal({ tty: { stdout: false } });
    const all = new Output(new IO(terminal.streams), 'csv', Chalk, undefined, async () => labels);
    await all.list([{ items: [link], nextCursor: null }], { columns: [], noun: 'links', csvColumns: ['id', 'customFields'] });
    await terminal.settled();
    expect(terminal.stdout).toBe('id,Player ID,Consent\nl1,12345,false\n');
  });

  it('CSV without the account\'s fields (none, or /me unreadable) keeps the answers as one JSON cell', async () => {
    const terminal = testTerminal({ tty: { stdout: false } });
    const all = new Output(new IO(terminal.streams), 'csv', Chalk, undefined, () => Promise.reject(new Error('no scope')));
    await all.list([{ items: [link], nextCursor: null }], { columns: [], noun: 'links', csvColumns: ['id', 'customFields'] });
    await terminal.settled();
    expect(terminal.stdout).toBe('id,customFields\nl1,"[{""fieldId"":""aaaa-1"",""textValue"":""12345"",""checked"":null},{""fieldId"":""BBBB-2"",""textValue"":null,""checked"":false}]"\n');
  });
});
