import { formatCountdown } from '../ui/relative-time.js';

interface Props {
  expiresAt?: string;
  now: number;
}

/** The time left before a pause expires, urgent in its last minute. */
export function TimeLeft({ expiresAt, now }: Props) {
  if (!expiresAt) return null;
  const left = Date.parse(expiresAt) - now;
  if (Number.isNaN(left)) return null;
  const expired = left <= 0;
  const urgency = expired ? 'expired' : left < 60_000 ? 'urgent' : 'normal';
  return (
    <p className={`hp-time-left hp-time-left--${urgency}`}>
      <svg
        className="hp-time-left__icon"
        viewBox="0 0 16 16"
        width="14"
        height="14"
        aria-hidden="true"
      >
        <circle cx="8" cy="8" r="6.25" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <path d="M8 4.5V8l2.5 1.5" fill="none" stroke="currentColor" strokeWidth="1.5" />
      </svg>
      {expired ? (
        <span>This pause has expired</span>
      ) : (
        <span>
          Expires in <time dateTime={expiresAt}>{formatCountdown(left)}</time>
        </span>
      )}
    </p>
  );
}
