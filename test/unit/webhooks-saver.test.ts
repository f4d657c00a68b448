/**
 * `webhooks listen --save-dir`: a name already taken — by an earlier delivery, a file, a link, a fifo
 * or a directory planted in the save directory — gets the next free name; nothing is ever written
 * over or through it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/features/webhooks/delivery.js';
import { Saver } from '../../src/features/webhooks/saver.js';
import { tempDir } from '../helpers/cleanup.js';

const delivery = (id: string): Delivery => ({ receivedAt: '2026-11-24T16:16:43.948Z', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ id })), id, type: 'order.sent' });
const ok = { ok: true, status: 200 };

describe('Saver', () => {
  it('a repeated id gets <id>.2.json, <id>.3.json, …', async () => {
    const dir = tempDir();
    const saver = new Saver(dir);
    expect([await saver.save(delivery('evt_1'), ok), await saver.save(delivery('evt_1'), ok), await saver.save(delivery('evt_1'), ok)]).toEqual(['evt_1.json', 'evt_1.2.json', 'evt_1.3.json']);
    expect(JSON.parse(readFileSync(join(dir, 'evt_1.3.json'), 'utf8'))).toEqual({ receivedAt: '2026-11-24T16:16:43.948Z', headers: { 'content-type': 'application/json' }, body: '{"id":"evt_1"}', verdict: { valid: true, status: 200 } });
  });

  it('a link planted at the name (to a file, or dangling) is passed over, never written through', async () => {
    const dir = tempDir();
    const victim = join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(dir, 'evt_link.json'));
    symlinkSync(join(dir, 'nowhere'), join(dir, 'evt_link.2.json'));
    expect(await new Saver(dir).save(delivery('evt_link'), ok)).toBe('evt_link.3.json');
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readlinkSync(join(dir, 'evt_link.json'))).toBe(victim);
    expect(readdirSync(dir).sort()).toEqual(['evt_link.2.json', 'evt_link.3.json', 'evt_link.json']);
  });

  it('a file, a directory or a fifo planted at the name is passed over and left as it was', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'evt_x.json'), 'planted');
    mkdirSync(join(dir, 'evt_x.2.json'));
    execFileSync('mkfifo', [join(dir, 'evt_x.3.json')]);
    expect(await new Saver(dir).save(delivery('evt_x'), ok)).toBe('evt_x.4.json');
    expect(readFileSync(join(dir, 'evt_x.json'), 'utf8')).toBe('planted');
  });

  it('after 100 taken numbered names, a random suffix; a thousand repeats take one name each, the next number', async () => {
    const dir = tempDir();
    for (let n = 1; n <= 101; n++) writeFileSync(join(dir, n === 1 ? 'evt_many.json' : `evt_many.${n}.json`), '');
    expect(await new Saver(dir).save(delivery('evt_many'), ok)).toMatch(/^evt_many\.[0-9a-f]{8}\.json$/);
    // Each repeat starts where the last one ended (one open, not a walk past every earlier name, which
    // after 100 taken names would end in a random suffix): the 1000th is evt_same.1000.json.
    const saver = new Saver(tempDir());
    const names: string[] = [];
    for (let i = 0; i < 1000; i++) names.push(await saver.save(delivery('evt_same'), ok));
    expect(names).toEqual(Array.from({ length: 1000 }, (_, i) => (i === 0 ? 'evt_same.json' : `evt_same.${i + 1}.json`)));
  });

  it('a save that cannot be written rejects with the reason (the receiver reports it and goes on)', async () => {
    const file = join(tempDir(), 'not-a-directory');
    writeFileSync(file, '');
    await expect(new Saver(file).save(delivery('evt_1'), ok)).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
