/**
 * The guided order's options step: options given with --variation that no orderable combination
 * has are not the end of the flow: the person is told which combinations can be ordered and asked
 * again; options that fit are kept and only what is missing is asked.
 */
import { describe, expect, it } from 'vitest';
import { chooseVariations } from '../../src/features/orders/guided.js';
import type { Prompter } from '../../src/core/prompter.js';
import type { StoreGift } from '../../src/api/types.js';

const gift = {
  productId: '810e4966-0bec-4426-a7f4-288c8408fefd',
  name: 'Hoodie',
  description: null,
  thumbnail: null,
  gallery: [],
  dimensions: [
    { name: 'size', label: 'Size', values: [{ value: 'S', label: 'S' }, { value: 'M', label: 'M' }, { value: 'L', label: 'L' }] },
    { name: 'color', label: 'Color', values: [{ value: 'black', label: 'Black' }, { value: 'white', label: 'White' }] },
  ],
  combinations: [{ variations: { size: 'S', color: 'black' } }, { variations: { size: 'M', color: 'white' } }, { variations: { size: 'L', color: 'black' } }],
  coinPrice: '1100',
} as unknown as StoreGift;

/** Picks the given answers in order from select prompts, recording each prompt and its choices. */
function picking(answers: string[]): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const never = async (message: string): Promise<never> => {
    throw new Error(`unexpected prompt: ${message}`);
  };
  return {
    asked,
    input: never,
    password: never,
    confirm: never,
    search: never,
    select: (async (message: string, choices: { name: string; value: string }[]) => {
      asked.push(`${message}: ${choices.map((choice) => choice.name).join(', ')}`);
      return answers.shift();
    }) as Prompter['select'],
  };
}

describe('guided options (chooseVariations)', () => {
  for (const [given, why] of [
    [{ size: 'XL' }, 'size=XL'],
    [{ colour: 'white' }, 'colour=white'],
    [{ size: 'S', color: 'white' }, 'size=S, color=white'],
  ] as const) {
    it(`${why}: told what can be ordered, then asked again`, async () => {
      const told: string[] = [];
      const prompter = picking(['L']);
      const chosen = await chooseVariations(prompter, gift, given, (line) => told.push(line));
      expect(told).toEqual([
        `${why} cannot be ordered; orderable now: size=S color=black; size=M color=white; size=L color=black`,
        'Color: Black (the only one orderable with what you chose)',
      ]);
      expect(prompter.asked).toEqual(['Size: S, M, L']);
      expect(chosen).toEqual({ size: 'L', color: 'black' });
    });
  }

  it('options that fit are kept; only what is missing is chosen', async () => {
    const told: string[] = [];
    const prompter = picking([]);
    expect(await chooseVariations(prompter, gift, { size: 'M' }, (line) => told.push(line))).toEqual({ size: 'M', color: 'white' });
    expect(told).toEqual(['Color: White (the only one orderable with what you chose)']);
    expect(prompter.asked).toEqual([]);
  });
});
