/** Bulk input that is hostile or broken: linear splitting, the 1 MiB cap per line or record, header errors that name the column. */
import { describe, expect, it } from 'vitest';
import { MAX_RECORD_BYTES, csvCells, readRows, splitRecords, type SourceRow } from '../../src/features/bulk/input.js';
import { UsageError } from '../../src/core/errors.js';

const CHUNK = 64 * 1024;

async function* chunked(...parts: (string | Buffer)[]): AsyncGenerator<Buffer> {
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part) : part;
    for (let at = 0; at < bytes.length; at += CHUNK) yield bytes.subarray(at, at + CHUNK);
  }
}

async function rows(...parts: (string | Buffer)[]): Promise<SourceRow[]> {
  const out: SourceRow[] = [];
  for await (const row of readRows(chunked(...parts), 'players.csv')) out.push(row);
  return out;
}

const KNOWN = 'known: campaignId, fullName, brandId, email, message, locale, field:<id or label>, idempotencyKey';
const tooLong = (bytes: number, what: string) => `${what} of ${bytes} bytes is over the limit of 1048576 bytes (1 MiB) per ${what}; not sent`;

/**
 * 40 MB read in linear time takes well under a second here, under a loaded run a few; a scan that
 * went back over what it had read (quadratic) would take hours. The bound tells the two apart.
 */
const LINEAR_MS = 10_000;

describe('bulk input: one 40 MB line among good rows', () => {
  const huge = Buffer.alloc(40 * 1024 * 1024, 'x');

  it('JSON lines: that row fails naming the cap, the others are read, in linear time', async () => {
    const started = performance.now();
    const result = await rows('{"campaignId":"c1","fullName":"Ada"}\n', '{"fullName":"', huge, '"}\n', '{"campaignId":"c2","fullName":"Bob"}\n');
    expect(performance.now() - started).toBeLessThan(LINEAR_MS);
    expect(result).toEqual([
      { row: 1, record: { campaignId: 'c1', fullName: 'Ada' } },
      { row: 2, error: tooLong(huge.length + 15, 'line') },
      { row: 3, record: { campaignId: 'c2', fullName: 'Bob' } },
    ]);
  });

  it('CSV: a 40 MB quoted cell spanning lines is one failed record; the next row is read', async () => {
    const started = performance.now();
    const result = await rows('campaignId,fullName\nc1,Ada\nc2,"', huge, '\nstill the same cell"\nc3,Bob\r\n');
    expect(performance.now() - started).toBeLessThan(LINEAR_MS);
    expect(result).toEqual([
      { row: 1, record: { campaignId: 'c1', fullName: 'Ada' } },
      { row: 2, error: tooLong(huge.length + 25, 'record') },
      { row: 3, record: { campaignId: 'c3', fullName: 'Bob' } },
    ]);
  });

  it('a line of exactly 1 MiB is read; one byte more is not', async () => {
    const lengths: (number | string)[] = [];
    for await (const record of splitRecords(chunked(Buffer.alloc(MAX_RECORD_BYTES, 'a'), '\n', Buffer.alloc(MAX_RECORD_BYTES + 1, 'b'), '\nend'), false)) {
      lengths.push('text' in record ? record.text.length : `over: ${record.tooLong}`);
    }
    expect(lengths).toEqual([MAX_RECORD_BYTES, `over: ${MAX_RECORD_BYTES + 1}`, 3]);
  });

  it('leading white space of 40 MB is scanned once', async () => {
    const started = performance.now();
    const result = await rows(Buffer.alloc(40 * 1024 * 1024, ' '), '{"fullName":"Ada"}\n');
    expect(performance.now() - started).toBeLessThan(LINEAR_MS);
    expect(result).toEqual([{ row: 1, error: tooLong(40 * 1024 * 1024 + 18, 'line') }]);
  });
});

describe('bulk CSV records', () => {
  it('a malformed record is its row\'s error and the rows after it are read', async () => {
    const result = await rows('campaignId,fullName\nc1,A"da\nc2,"Bob"x\nc3,"Carol ""C"""\n\nc4,"Dan\n');
    expect(result).toEqual([
      { row: 1, error: 'CSV cannot be read: field 2: a quote inside an unquoted field (quote the whole field and double the quote)' },
      { row: 2, error: 'CSV cannot be read: field 2: text after the closing quote' },
      { row: 3, record: { campaignId: 'c3', fullName: 'Carol "C"' } },
      { row: 4, error: 'CSV cannot be read: a quoted field is not closed before the end of the input' },
    ]);
  });

  it('splits cells as RFC 4180 says', () => {
    expect(csvCells('a,"b,c","d\r\ne",,"",f\r')).toEqual(['a', 'b,c', 'd\r\ne', '', '', 'f']);
    expect(csvCells('')).toEqual(['']);
  });

  it('a UTF-8 BOM split over the first chunks is dropped; multi-byte characters survive chunk edges', async () => {
    async function* bytes() {
      const all = Buffer.from('\uFEFFcampaignId,fullName\nc1,Zoë Ünal\n');
      for (let at = 0; at < all.length; at++) yield all.subarray(at, at + 1);
    }
    const out: SourceRow[] = [];
    for await (const row of readRows(bytes(), 'players.csv')) out.push(row);
    expect(out).toEqual([{ row: 1, record: { campaignId: 'c1', fullName: 'Zoë Ünal' } }]);
  });
});

describe('bulk CSV header', () => {
  const headerError = async (text: string) => {
    try {
      await rows(text);
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    }
    throw new Error('no error');
  };

  it('names an unknown column and lists the known ones', async () => {
    expect(await headerError('campaignId,fulName\nc1,Ada\n')).toBe(`players.csv: unknown column "fulName" (${KNOWN})`);
  });

  it('names a missing required column', async () => {
    expect(await headerError('campaignId,email\nc1,a@example.com\n')).toBe(`players.csv: missing column "fullName" (${KNOWN})`);
    expect(await headerError('email\na@example.com\n')).toBe(`players.csv: missing columns "campaignId", "fullName" (${KNOWN})`);
  });

  it('a header over the cap is a usage error', async () => {
    expect(await headerError(`campaignId,${'x'.repeat(MAX_RECORD_BYTES)}\nc1,Ada\n`)).toBe(`players.csv: the header row cannot be read: ${tooLong(MAX_RECORD_BYTES + 11, 'record')}`);
  });
});
