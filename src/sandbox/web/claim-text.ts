/**
 * Every sentence of the gift site, in each locale the sandbox's account enables (en-US, de-DE): a
 * link's page is in the link's language throughout. A locale without a table reads English.
 */
export interface ClaimText {
  lang: string;
  site: string;
  skip: string;
  footer: string;
  title(name: string): string;
  hello(name: string): string;
  intro(brand: string): string;
  messageFrom(brand: string): string;
  check(count: number): string;
  countryForm: string;
  deliverTo: string;
  countryHint(shown: string): string;
  showGifts: string;
  claimForm: string;
  chooseGift: string;
  noGiftFor(country: string): string;
  addressIn(country: string): string;
  claim: string;
  labels: Record<'name' | 'email' | 'phone' | 'street' | 'city' | 'postalCode' | 'country', string>;
  optional: string;
  upTo(max: number): string;
  emailHint: string;
  phoneHint: string;
  noPostalCode(country: string): string;
  errors: {
    chooseGift: string;
    notDelivered(country: string): string;
    options: string;
    tooLong(label: string, max: number): string;
    required(label: string): string;
    postalCode(country: string, max: number): string;
    phone: string;
    email: string;
    invalid(label: string): string;
    unknownCountry: string;
  };
  notYet: [string, string];
  claimed: [string, (date: string) => string];
  expired: [string, string];
  noGifts: [string, string];
  done: { title: string; thanks(name: string): string; gift: string; options: string; country: string; address: string };
}

const EN: ClaimText = {
  lang: 'en-US',
  site: 'Gift site',
  skip: 'Skip to main content',
  footer: 'svc sandbox: a local stand-in for the service. Nothing here is sent anywhere.',
  title: (name) => `A gift for ${name}`,
  hello: (name) => `Hello, ${name}!`,
  intro: (brand) => `${brand} has a gift for you. Choose one gift and tell us where to send it.`,
  messageFrom: (brand) => `A message from ${brand}`,
  check: (count) => `Please check ${count === 1 ? 'one answer' : `${count} answers`}`,
  countryForm: 'Delivery country',
  deliverTo: 'Deliver to',
  countryHint: (shown) => `The gifts on offer depend on the country; those below are delivered to ${shown}.`,
  showGifts: 'Show gifts for this country',
  claimForm: 'Claim your gift',
  chooseGift: 'Choose your gift',
  noGiftFor: (country) => `No gift is delivered to ${country} now.`,
  addressIn: (country) => `Delivery address in ${country}`,
  claim: 'Claim my gift',
  labels: { name: 'Full name', email: 'E-mail', phone: 'Phone number', street: 'Street and number', city: 'City', postalCode: 'Postal code', country: 'Country' },
  optional: 'optional',
  upTo: (max) => `Up to ${max} characters.`,
  emailHint: 'We send the delivery status there.',
  phoneHint: 'International format, such as +4930123456.',
  noPostalCode: (country) => `No postal code is needed for ${country}.`,
  errors: {
    chooseGift: 'Choose a gift.',
    notDelivered: (country) => `Choose one of the gifts delivered to ${country}.`,
    options: "Choose one of the gift's options that can be ordered now.",
    tooLong: (label, max) => `${label} can be at most ${max} characters.`,
    required: (label) => `Enter your ${label.toLowerCase()}.`,
    postalCode: (country, max) => `A postal code is required for deliveries to ${country} (up to ${max} characters).`,
    phone: 'Enter the phone number in international format: + and the country code, then up to 14 digits (such as +4930123456).',
    email: 'Enter an e-mail address such as name@example.com.',
    invalid: (label) => `${label} is not valid.`,
    unknownCountry: 'Gifts are not delivered to that country; choose one from the list.',
  },
  notYet: ['Your gift is not available yet', 'This gift link is waiting for approval. Please open it again later.'],
  claimed: ['This gift has already been claimed', (date) => `This link was claimed on ${date}. The gift goes to the address given with the claim.`],
  expired: ['This gift link has expired', 'This link can no longer be used to choose a gift.'],
  noGifts: ['No gifts right now', 'No gift can be delivered at the moment. Please open this link again later.'],
  done: {
    title: 'Your gift is on its way',
    thanks: (name) => `Thank you, ${name}. Your claim is placed:`,
    gift: 'Gift',
    options: 'Options',
    country: 'Delivered to',
    address: 'It goes to the address you gave, which is not shown here.',
  },
};

const DE: ClaimText = {
  lang: 'de-DE',
  site: 'Geschenkseite',
  skip: 'Zum Hauptinhalt springen',
  footer: 'svc sandbox: ein lokaler Ersatz für den Dienst. Von hier wird nichts verschickt.',
  title: (name) => `Ein Geschenk für ${name}`,
  hello: (name) => `Hallo, ${name}!`,
  intro: (brand) => `${brand} hat ein Geschenk für dich. Wähle ein Geschenk und sag uns, wohin wir es schicken sollen.`,
  messageFrom: (brand) => `Eine Nachricht von ${brand}`,
  check: (count) => `Bitte prüfe ${count === 1 ? 'eine Angabe' : `${count} Angaben`}`,
  countryForm: 'Lieferland',
  deliverTo: 'Liefern nach',
  countryHint: (shown) => `Welche Geschenke es gibt, hängt vom Land ab; die folgenden werden nach ${shown} geliefert.`,
  showGifts: 'Geschenke für dieses Land zeigen',
  claimForm: 'Geschenk anfordern',
  chooseGift: 'Wähle dein Geschenk',
  noGiftFor: (country) => `Derzeit wird kein Geschenk nach ${country} geliefert.`,
  addressIn: (country) => `Lieferadresse in ${country}`,
  claim: 'Mein Geschenk anfordern',
  labels: { name: 'Vollständiger Name', email: 'E-Mail', phone: 'Telefonnummer', street: 'Straße und Hausnummer', city: 'Ort', postalCode: 'Postleitzahl', country: 'Land' },
  optional: 'freiwillig',
  upTo: (max) => `Bis zu ${max} Zeichen.`,
  emailHint: 'Dorthin schicken wir den Lieferstatus.',
  phoneHint: 'Internationales Format, zum Beispiel +4930123456.',
  noPostalCode: (country) => `Für ${country} ist keine Postleitzahl nötig.`,
  errors: {
    chooseGift: 'Wähle ein Geschenk.',
    notDelivered: (country) => `Wähle eines der Geschenke, die nach ${country} geliefert werden.`,
    options: 'Wähle eine Ausführung des Geschenks, die jetzt bestellbar ist.',
    tooLong: (label, max) => `${label} darf höchstens ${max} Zeichen lang sein.`,
    required: (label) => `Bitte ${label} angeben.`,
    postalCode: (country, max) => `Für Lieferungen nach ${country} ist eine Postleitzahl nötig (bis zu ${max} Zeichen).`,
    phone: 'Gib die Telefonnummer im internationalen Format ein: + und die Ländervorwahl, dann bis zu 14 Ziffern (zum Beispiel +4930123456).',
    email: 'Gib eine E-Mail-Adresse wie name@example.com ein.',
    invalid: (label) => `${label} ist ungültig.`,
    unknownCountry: 'In dieses Land werden keine Geschenke geliefert; wähle eines aus der Liste.',
  },
  notYet: ['Dein Geschenk ist noch nicht verfügbar', 'Dieser Geschenklink wartet auf Freigabe. Bitte öffne ihn später noch einmal.'],
  claimed: ['Dieses Geschenk wurde bereits angefordert', (date) => `Dieser Link wurde am ${date} eingelöst. Das Geschenk geht an die Adresse, die dabei angegeben wurde.`],
  expired: ['Dieser Geschenklink ist abgelaufen', 'Mit diesem Link kann kein Geschenk mehr gewählt werden.'],
  noGifts: ['Gerade keine Geschenke', 'Derzeit kann kein Geschenk geliefert werden. Bitte öffne diesen Link später noch einmal.'],
  done: {
    title: 'Dein Geschenk ist unterwegs',
    thanks: (name) => `Danke, ${name}. Deine Anforderung ist aufgegeben:`,
    gift: 'Geschenk',
    options: 'Ausführung',
    country: 'Lieferung nach',
    address: 'Es geht an die Adresse, die du angegeben hast; sie wird hier nicht angezeigt.',
  },
};

const TEXTS: ReadonlyMap<string, ClaimText> = new Map([
  ['en-US', EN],
  ['de-DE', DE],
]);

/** The gift site's sentences for a link's locale (English for a locale without a table). */
export function claimText(locale: string): ClaimText {
  return TEXTS.get(locale) ?? EN;
}

/** A country's name in the page's language, with its code: "Deutschland (DE)". */
export function countryName(text: ClaimText, code: string): string {
  return `${new Intl.DisplayNames([text.lang], { type: 'region' }).of(code) ?? code} (${code})`;
}
