import type { ApiGrant } from 'holdpoint/react';
import { formatDuration, humanizeToolName } from 'holdpoint/react';
import { useEffect, useRef } from 'react';
import { grantState, matchLines } from './grant-text';

/** Where revoking a row stands: asked to confirm, sent, or done from this page. */
export type RevokeStep = 'confirming' | 'revoking' | 'revoked';

interface Props {
  grant: ApiGrant;
  now: number;
  /** Absent: nothing started on this row. */
  step?: RevokeStep;
  onRevoke: () => void;
  onConfirm: () => void;
  onCancel: () => void;
}

/** The grant's scope: the conversation it was made in (a link to it), or all of them. */
function ScopeCell({ grant }: { grant: ApiGrant }) {
  if (grant.scope === 'user') return <>All your conversations</>;
  const to = `/?${new URLSearchParams({ session: grant.session_id, app: grant.app })}`;
  return (
    <a href={to} className="hp-link">
      This conversation
    </a>
  );
}

/**
 * One grant as a table row: the tool, app, scope, the calls it covers, who granted it,
 * and where it stands; a grant in force has Revoke, which asks to confirm first.
 */
export function GrantRow({ grant, now, step, onRevoke, onConfirm, onCancel }: Props) {
  const tool = humanizeToolName(grant.tool_name);
  const { state, text } = grantState(grant, now);
  const conditions = matchLines(grant.match);
  const confirm = useRef<HTMLButtonElement>(null);
  const status = useRef<HTMLTableCellElement>(null);
  const revokeButton = useRef<HTMLButtonElement>(null);
  const previous = useRef<RevokeStep | undefined>(undefined);
  // Focus follows the action: onto "Yes, revoke" when asked, onto the state once revoked,
  // back onto Revoke when kept or refused (the buttons that had it are gone, so focus
  // would otherwise fall to the page's start).
  useEffect(() => {
    if (step === 'confirming') confirm.current?.focus();
    if (step === 'revoked') status.current?.focus();
    if (step === undefined && previous.current !== undefined) revokeButton.current?.focus();
    previous.current = step;
  }, [step]);
  return (
    <tr className={`grant-row grant-row--${state}`}>
      <th scope="row" className="grant-row__tool">
        {tool}
      </th>
      <td>{grant.app}</td>
      <td>
        <ScopeCell grant={grant} />
      </td>
      <td>
        {conditions.length === 0 ? (
          'Every call'
        ) : (
          <ul className="grant-row__conditions">
            {conditions.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {grant.granted_by}{' '}
        <time className="grant-row__age" dateTime={grant.created_at}>
          {formatDuration(now - Date.parse(grant.created_at))} ago
        </time>
      </td>
      <td ref={status} tabIndex={-1} className={`grant-row__state grant-row__state--${state}`}>
        {state === 'in-force' ? <time dateTime={grant.expires_at}>{text}</time> : text}
      </td>
      <td className="grant-row__action">
        {state !== 'in-force' ? null : step === 'confirming' || step === 'revoking' ? (
          <fieldset className="grant-row__confirm" aria-label={`Revoke ${tool} (${grant.app})?`}>
            <span>Revoke? Later calls ask again.</span>
            <button
              ref={confirm}
              type="button"
              className="hp-button hp-button--danger hp-button--small"
              disabled={step === 'revoking'}
              onClick={onConfirm}
            >
              {step === 'revoking' ? 'Revoking…' : 'Yes, revoke'}
            </button>
            <button
              type="button"
              className="hp-button hp-button--ghost hp-button--small"
              disabled={step === 'revoking'}
              onClick={onCancel}
            >
              Keep
            </button>
          </fieldset>
        ) : (
          <button
            ref={revokeButton}
            type="button"
            className="hp-button hp-button--secondary hp-button--small"
            aria-label={`Revoke ${tool} (${grant.app})`}
            onClick={onRevoke}
          >
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}
