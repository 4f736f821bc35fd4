/** "200 USD", "12.50 EUR", "1,000 JPY": whole amounts without decimals, others with two. */
export function formatMoney(amount: number, currency: string): string {
  const digits = Number.isInteger(amount) ? 0 : 2;
  const number = amount.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return `${number} ${currency}`;
}
