import type { RewardStore, StoreGift } from '../../api/types.js';
import { getRewardStore } from '../../api/resources.js';
import type { Context } from '../../app/context.js';
import type { ArgsOf, OptionsOf } from '../../app/verb.js';
import { textWidth } from '../../core/width.js';
import type { Output } from '../../core/output.js';
import { truncate, wrapLine } from '../../core/output.js';
import { terminalSafeLine } from '../../core/sanitize.js';
import { UsageError } from '../../core/errors.js';
import * as validate from '../../api/checks.js';
import * as resolve from '../../features/resolve.js';
import { formatPrice } from '../../features/price.js';
import type { Command } from '@commander-js/extra-typings';
import { examples, fieldsOption } from '../declare.js';

export function declare(command: Command) {
  return command
    .argument('<id>', 'store id')
    .description('show a store for a brand, country and language: sections, gifts, prices, options')
    .option('--brand <id|name>', 'brand the store is read for, id or name (required)')
    .option('--country <cc>', 'delivery country, two letters (required)')
    .option('--locale <locale>', 'language (default en-US)')
    .addOption(fieldsOption('storeDetail'))
    .addHelpText('after', examples('svc stores show <id> --brand <id> --country DE --locale de-DE', 'svc stores show <id> --brand <id> --country US -o json | jq ".sections[].items[].name"'));
}

export async function run(ctx: Context, opts: OptionsOf<typeof declare>, [id]: ArgsOf<typeof declare>): Promise<void> {
  const storeId = validate.uuid(id, 'ID');
  if (opts.brand === undefined) throw new UsageError('--brand: required (the brand to read the store for; see svc stores ls)');
  if (opts.country === undefined) throw new UsageError('--country: required (two-letter delivery country, e.g. DE)');
  const country = validate.country(opts.country);
  const locale = validate.locale(opts.locale);
  const query = { brandId: (await resolve.brandId(ctx, opts.brand)) as string, country, locale };
  const client = await ctx.client();
  const store = (await getRewardStore(client, storeId, query, { signal: ctx.signal })).body;
  const output = await ctx.output();
  await output.object(store, (value) => renderStore(output, value));
}

/** A person's view of a store: header, then one table per section with prices and options. */
export async function renderStore(output: Output, store: RewardStore): Promise<string> {
  const { chalk } = output;
  const width = output.io.terminalWidth();
  const fit = (text: string) => truncate(terminalSafeLine(text), width);
  const currency = store.currency?.symbol || store.currency?.name || '';
  const id = terminalSafeLine(store.id);
  const lines = [
    // The id stays whole; the name gives way to it.
    `${chalk.bold(truncate(terminalSafeLine(store.name), Math.max(1, width - textWidth(id) - 2)))}  ${chalk.dim(id)}`,
    ...wrapLine(terminalSafeLine(
      `${store.phase}${store.startsAt ? ` from ${store.startsAt}` : ''}${store.endsAt ? ` until ${store.endsAt}` : ''} · ${store.brand?.name ?? ''} · ${store.country} · ${store.locale} · prices in ${store.currency?.name ?? ''}${currency && currency !== store.currency?.name ? ` (${currency})` : ''}`,
    ), width),
  ];
  if (store.description) lines.push('', ...String(store.description).split('\n').map(fit));
  if (store.phase !== 'LIVE') lines.push('', chalk.yellow('This store takes no orders until it is LIVE.'));
  const sections = store.sections ?? [];
  if (sections.length === 0) lines.push('', chalk.dim('No gifts can be ordered for this country now.'));
  for (const section of sections) {
    lines.push('', chalk.bold(fit(section.name)));
    // A table where every gift's options and combinations fit whole; else one block per gift, wrapped.
    const table = (
      await output.table(
        [
          { header: 'Gift', value: (gift: StoreGift) => gift.name },
          { header: 'Price', value: (gift: StoreGift) => formatPrice(gift.coinPrice, store.currency), id: true },
          { header: 'Options', value: (gift: StoreGift) => describeOptions(gift), multiline: true },
          { header: 'Orderable combinations', value: (gift: StoreGift) => describeCombinations(gift), multiline: true },
          { header: 'Product ID', value: (gift: StoreGift) => gift.productId, id: true },
        ],
        section.items ?? [],
        { ruled: true, width: Number.MAX_SAFE_INTEGER },
      )
    ).trimEnd();
    if (table.split('\n').every((line) => textWidth(line) <= width)) lines.push(table);
    else for (const gift of section.items ?? []) lines.push(...giftLines(output, gift, formatPrice(gift.coinPrice, store.currency), width));
  }
  return lines.join('\n');
}

/**
 * One gift as a block: name, price and product id on its first line (the id whole, the name gives
 * way), then its description, each option with its values and the orderable combinations, which
 * wrap rather than shrink: they are what --variation needs.
 */
function giftLines(output: Output, gift: StoreGift, price: string, width: number): string[] {
  const { chalk } = output;
  const id = terminalSafeLine(gift.productId);
  const priced = `  ${terminalSafeLine(price)}`;
  const room = width - 2 - textWidth(priced) - 2 - textWidth(id);
  const head =
    room >= 8
      ? [`  ${chalk.bold(truncate(terminalSafeLine(gift.name), room))}${priced}  ${chalk.dim(id)}`]
      : [`  ${chalk.bold(truncate(terminalSafeLine(gift.name), Math.max(1, width - 2 - textWidth(priced))))}${priced}`, `    ${chalk.dim(id)}`];
  const indent = '    ';
  const wrapped = (text: string, paint: (line: string) => string = (line) => line) =>
    wrapLine(text, Math.max(8, width - indent.length)).map((line) => `${indent}${paint(line)}`);
  const description = (gift.description ?? '').split('\n').filter((line) => line.trim() !== '');
  const dimensions = gift.dimensions ?? [];
  return [
    ...head,
    ...description.flatMap((line) => wrapped(terminalSafeLine(line), chalk.dim)),
    ...(dimensions.length === 0 ? wrapped('No options') : describeOptions(gift).split('\n').flatMap((line) => wrapped(line))),
    ...(dimensions.length === 0 ? [] : wrapItems('Orderable: ', describeCombinations(gift).split('\n'), Math.max(8, width - indent.length)).map((line) => `${indent}${line}`)),
  ];
}

/** Items joined with ` · `, wrapped between items (an item is broken only when it alone is too wide). */
function wrapItems(prefix: string, items: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = prefix;
  for (const [index, item] of items.entries()) {
    const piece = index === items.length - 1 ? item : `${item} ·`;
    if (line.trim() !== prefix.trim() && textWidth(`${line} ${piece}`) > width) {
      lines.push(line);
      line = ' '.repeat(textWidth(prefix)) + piece;
    } else {
      line = line === prefix ? `${prefix}${piece}` : `${line} ${piece}`;
    }
  }
  lines.push(line);
  return lines.flatMap((text) => wrapLine(text, width));
}

/** One line per dimension; every part from the API is made safe here, since the lines are the view's own. */
function describeOptions(gift: StoreGift): string {
  const dimensions = gift.dimensions ?? [];
  if (dimensions.length === 0) return '—';
  return dimensions
    .map((dimension) =>
      terminalSafeLine(`${dimension.label} (${dimension.name}): ${dimension.values.map((v) => (v.label === v.value ? v.value : `${v.label}=${v.value}`)).join(', ')}`),
    )
    .join('\n');
}

function describeCombinations(gift: StoreGift): string {
  const combinations = gift.combinations ?? [];
  if ((gift.dimensions ?? []).length === 0) return 'no options';
  const all = (gift.dimensions ?? []).reduce((count, dimension) => count * dimension.values.length, 1);
  const listed = combinations.map((combination) => terminalSafeLine(Object.entries(combination.variations).map(([name, value]) => `${name}=${value}`).join(' ')));
  const soldOut = all - combinations.length;
  return `${listed.join('\n')}${soldOut > 0 ? `\n(${soldOut} not orderable now)` : ''}`;
}
