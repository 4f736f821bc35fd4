import { ArgumentList } from 'holdpoint/react';
import { ImageGrid } from './image-grid';
import { PaymentReceipt } from './payment-receipt';

const isImage = (value: unknown): value is string =>
  typeof value === 'string' && value.startsWith('data:image/');

/** A tool's output in the form that suits it: images, a receipt, a pick, or its fields. */
export function ToolResult({ output }: { output: unknown }) {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) {
    return <p className="tool-result__text">{String(output)}</p>;
  }
  const fields = output as Record<string, unknown>;
  const artifacts = Array.isArray(fields.artifacts) ? fields.artifacts.filter(isImage) : [];
  if (artifacts.length > 0) {
    return (
      <ImageGrid
        images={artifacts}
        orderId={typeof fields.order_id === 'string' ? fields.order_id : undefined}
      />
    );
  }
  if (typeof fields.transaction_id === 'string') {
    return (
      <PaymentReceipt
        transactionId={fields.transaction_id}
        amount={typeof fields.amount === 'number' ? fields.amount : undefined}
        currency={typeof fields.currency === 'string' ? fields.currency : undefined}
        recipient={typeof fields.recipient === 'string' ? fields.recipient : undefined}
      />
    );
  }
  if (typeof fields.item === 'string') {
    return (
      <p className="tool-result__pick">
        Picked <strong>{fields.item}</strong>
      </p>
    );
  }
  if (typeof fields.confirmed === 'boolean') {
    return <p className="tool-result__pick">{fields.confirmed ? 'Confirmed' : 'Not confirmed'}</p>;
  }
  return <ArgumentList args={fields} />;
}
