interface Props {
  transactionId: string;
  amount?: number;
  currency?: string;
  recipient?: string;
}

/**
 * An amount as the app itself writes it, in its approval's hint and its answer: "200 USD",
 * "12.50 EUR", "1,000 JPY" (whole amounts without decimals, others with two).
 */
export function formatAmount(amount: number | undefined, currency: string | undefined): string {
  if (amount === undefined) return '—';
  const digits = Number.isInteger(amount) ? 0 : 2;
  const number = amount.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return `${number} ${currency ?? 'USD'}`;
}

/** The receipt of a completed payment. */
export function PaymentReceipt({ transactionId, amount, currency, recipient }: Props) {
  return (
    <section className="receipt" aria-label="Payment receipt">
      <header className="receipt__header">
        <span className="receipt__check" aria-hidden="true">
          ✓
        </span>
        <span className="receipt__title">Payment sent</span>
        <span className="receipt__amount">{formatAmount(amount, currency)}</span>
      </header>
      <dl className="receipt__rows">
        <div className="receipt__row">
          <dt>Recipient</dt>
          <dd>{recipient ?? '—'}</dd>
        </div>
        <div className="receipt__row">
          <dt>Currency</dt>
          <dd>{currency ?? '—'}</dd>
        </div>
        <div className="receipt__row">
          <dt>Transaction</dt>
          <dd>
            <code className="receipt__txn">{transactionId}</code>
          </dd>
        </div>
      </dl>
    </section>
  );
}
