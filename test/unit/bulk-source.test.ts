import { describe, expect, it } from 'vitest';
import { readRows, type SourceRow } from '../../src/features/bulk/input.js';
import { UsageError } from '../../src/core/errors.js';

/** Feeds the text in small chunks so parsing across chunk boundaries is exercised too. */
async function rows(text: string, chunkSize = 7): Promise<SourceRow[]> {
  const bytes = Buffer.from(text, 'utf8');
  async function* chunks() {
    for (let at = 0; at < bytes.length; at += chunkSize) yield bytes.subarray(at, at + chunkSize);
  }
  const out: SourceRow[] = [];
  for await (const row of readRows(chunks())) out.push(row);
  return out;
}

describe('bulk CSV', () => {
  it('reads quoted fields with embedded commas, quotes and line breaks, numbering data rows from 1', async () => {
    const text = 'campaignId,fullName,message\r\nc1,"Lovelace, Ada","say ""hi""\nthere"\nc2,Bob,\n';
    expect(await rows(text)).toEqual([
      { row: 1, record: { campaignId: 'c1', fullName: 'Lovelace, Ada', message: 'say "hi"\nthere' } },
      { row: 2, record: { campaignId: 'c2', fullName: 'Bob' } },
    ]);
  });

  it('keeps field: columns by id or label and canonicalises known column names', async () => {
    const text = '\uFEFFCampaignID,FULLNAME,field:VIP tier,field: 0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11\nc1,Ada,Gold,yes\n';
    expect(await rows(text)).toEqual([
      { row: 1, record: { campaignId: 'c1', fullName: 'Ada', 'field:VIP tier': 'Gold', 'field:0b7c2f0e-1d8e-4c8e-9a59-3f1f5b0c2d11': 'yes' } },
    ]);
  });

  it('reports a row with the wrong number of cells and goes on', async () => {
    const result = await rows('campaignId,fullName\nc1,Ada,extra\nc2,Bob\n');
    expect(result[0]).toMatchObject({ row: 1, error: 'has 3 cells, the header has 2' });
    expect(result[1]).toEqual({ row: 2, record: { campaignId: 'c2', fullName: 'Bob' } });
  });

  it('refuses an unknown or repeated column before any row', async () => {
    await expect(rows('campaignId,name\nc1,Ada\n')).rejects.toThrow(UsageError);
    await expect(rows('campaignId,fullName,fullname\nc1,Ada,B\n')).rejects.toThrow(/more than once/);
  });

  it('ends with an error row when the CSV cannot be resynchronised', async () => {
    const result = await rows('campaignId,fullName\nc1,Ada\nc2,"unclosed\n');
    expect(result[0]).toEqual({ row: 1, record: { campaignId: 'c1', fullName: 'Ada' } });
    expect(result[1].row).toBe(2);
    expect(result[1].error).toMatch(/CSV cannot be read/);
  });
});

describe('bulk JSON lines', () => {
  it('is chosen by a leading { and skips blank lines without counting them', async () => {
    const text = '  {"campaignId":"c1","fullName":"Ada","field:VIP tier":"Gold"}\r\n\n{"fullName":"Bö","customFields":[]}';
    expect(await rows(text, 3)).toEqual([
      { row: 1, record: { campaignId: 'c1', fullName: 'Ada', 'field:VIP tier': 'Gold' } },
      { row: 2, record: { fullName: 'Bö', customFields: [] } },
    ]);
  });

  it('reports bad JSON, non-objects and unknown members as row errors', async () => {
    const result = await rows('{"fullName":"A"}\n{bad\n[1]\n{"name":"x"}\n');
    expect(result.map((row) => row.error === undefined)).toEqual([true, false, false, false]);
    expect(result[1].error).toMatch(/not valid JSON/);
    expect(result[2].error).toBe('not a JSON object');
    expect(result[3].error).toMatch(/unknown member name/);
  });
});
