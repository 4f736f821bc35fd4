/** A payment a message asks for. */
export interface PaymentRequest {
  amount: number;
  currency: string;
  recipient: string;
}

const SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY' };
const WORDS: Record<string, string> = {
  dollar: 'USD',
  dollars: 'USD',
  bucks: 'USD',
  euro: 'EUR',
  euros: 'EUR',
  pound: 'GBP',
  pounds: 'GBP',
  yen: 'JPY',
  ドル: 'USD',
  円: 'JPY',
  ユーロ: 'EUR',
  ポンド: 'GBP',
};
// ISO 4217 codes the rules recognize, in any case; a closed list so "send 200 now to…"
// does not read "now" as a currency.
const CODES =
  'usd|eur|gbp|jpy|chf|cad|aud|nzd|cny|hkd|sgd|inr|krw|mxn|brl|sek|nok|dkk|pln|czk|zar|try';

const NUMBER = '(?<number>\\d[\\d,]*(?:\\.\\d+)?)';
const UNIT = `(?<unit>(?:${CODES}|dollars?|bucks|euros?|pounds?|yen)(?![a-z]))`;
const AMOUNT = `(?<symbol>[$€£¥])?\\s?${NUMBER}(?:\\s?${UNIT})?`;
const WORD_TAIL = `[\\p{L}\\p{M}'.-]*`;
const WORD = `\\p{L}${WORD_TAIL}`;
const ENGLISH = [
  new RegExp(`\\b(?:send|transfer|pay|wire)\\s+${AMOUNT}\\s+to\\s+(?<recipient>${WORD})`, 'iu'),
  // The amount ends the name here, so a name of up to three words is unambiguous.
  new RegExp(`\\bpay\\s+(?<recipient>${WORD}(?:\\s+${WORD}){0,2}?)\\s+${AMOUNT}`, 'iu'),
];
// Extends a one-word name with the capitalized words after it ("Mary Jane"); a separate
// case-sensitive pattern because the 'i' flag would make \p{Lu} match any letter.
const MORE_NAME = new RegExp(`^(?:\\s+\\p{Lu}${WORD_TAIL})*`, 'u');
// "次郎さんに200ドル送金してください": recipient, optional honorific, に, amount, unit.
// The name is at most 20 characters, so a long text without a match costs linear time.
const JAPANESE = new RegExp(
  `(?<recipient>[^\\s、。,.!?0-9]{1,20}?)(?:さん|様|さま|くん|君|ちゃん)?に${NUMBER}\\s?(?<unit>ドル|円|ユーロ|ポンド)?`,
  'u',
);

function currencyOf(symbol: string | undefined, unit: string | undefined): string {
  if (unit) return WORDS[unit.toLowerCase()] ?? unit.toUpperCase();
  return (symbol && SYMBOLS[symbol]) ?? 'USD';
}

function recipientOf(name: string, rest: string): string {
  const full = name + (MORE_NAME.exec(rest)?.[0] ?? '');
  return full.replace(/[.,!?]+$/, '');
}

/**
 * Reads a payment request in English ("Send $200 to Jiro", "send 50 EUR to Ana",
 * "Pay Bob 12.50 dollars") or Japanese ("次郎さんに200ドル送金してください").
 * Returns undefined when the text asks for no payment; the currency defaults to USD.
 */
export function parsePaymentRequest(text: string): PaymentRequest | undefined {
  // NFKC folds full-width digits and symbols (２００, ＄) into ASCII.
  const normalized = text.normalize('NFKC');
  const patterns = /送金|払|振込|振り込/.test(normalized) ? [JAPANESE, ...ENGLISH] : ENGLISH;
  for (const pattern of patterns) {
    const match = pattern.exec(normalized);
    const groups = match?.groups;
    if (!match || !groups?.number || !groups.recipient) continue;
    const amount = Number(groups.number.replaceAll(',', ''));
    if (!(amount > 0)) continue;
    return {
      amount,
      currency: currencyOf(groups.symbol, groups.unit),
      recipient: recipientOf(groups.recipient, normalized.slice(match.index + match[0].length)),
    };
  }
  return undefined;
}

// Further payments in the same message: "… and $50 to Ana", "…, 20 EUR to Bob".
const MORE = new RegExp(`(?:\\band|,)\\s+${AMOUNT}\\s+to\\s+(?<recipient>${WORD})`, 'giu');

/**
 * Every payment a message asks for, in order: the first as `parsePaymentRequest`
 * reads it, then each "and <amount> to <name>" after it ("Send $200 to Jiro and
 * $50 to Ana"). Empty when the text asks for no payment.
 */
export function parsePaymentRequests(text: string): PaymentRequest[] {
  const first = parsePaymentRequest(text);
  if (!first) return [];
  const payments = [first];
  for (const match of text.normalize('NFKC').matchAll(MORE)) {
    const groups = match.groups;
    const amount = Number(groups?.number?.replaceAll(',', ''));
    if (!groups?.recipient || !(amount > 0)) continue;
    payments.push({
      amount,
      currency: currencyOf(groups.symbol, groups.unit),
      recipient: groups.recipient.replace(/[.,!?]+$/, ''),
    });
  }
  return payments;
}
