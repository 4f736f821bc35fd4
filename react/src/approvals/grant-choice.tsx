import { useId, useState } from 'react';
import type { ApiDecisionPolicy, GrantBody } from '../client/api-types.js';

type GrantPolicy = NonNullable<ApiDecisionPolicy['grants']>;
type Scope = GrantBody['scope'];

/** A grant being chosen: which scope (none: just this call) and for how many hours. */
export interface GrantDraft {
  scope: Scope | 'none';
  setScope: (scope: Scope | 'none') => void;
  hours: string;
  setHours: (hours: string) => void;
  /** The grant chosen, when one is and its hours are within the policy. */
  grant?: GrantBody;
  error?: string;
}

/** The state of an "Also allow this tool for…" choice under a tool's grant policy. */
export function useGrantDraft(policy: GrantPolicy | undefined): GrantDraft {
  const [scope, setScope] = useState<Scope | 'none'>('none');
  const [hours, setHours] = useState(() => String(Math.min(1, policy?.max_hours ?? 1)));
  const common = { scope, setScope, hours, setHours };
  if (scope === 'none' || !policy) return common;
  const value = Number(hours);
  if (hours.trim() === '' || !Number.isFinite(value) || value <= 0) {
    return { ...common, error: 'Enter how many hours.' };
  }
  if (value > policy.max_hours) {
    return { ...common, error: `At most ${policy.max_hours} hours.` };
  }
  return { ...common, grant: { scope, hours: value } };
}

/** How a scope reads: this conversation, or every conversation of the person who asked. */
export function scopeLabel(scope: Scope, owner: string | undefined, me: string): string {
  if (scope === 'session') return 'This conversation';
  if (owner === undefined) return 'The person who asked, in any conversation';
  return owner === me ? 'Me, in any conversation' : `${owner}, in any conversation`;
}

interface Props {
  policy: GrantPolicy;
  grant: GrantDraft;
  /** Who asked (the session's owner), when known: a user grant is theirs. */
  owner?: string;
  /** The signed-in person. */
  me: string;
  disabled: boolean;
}

/**
 * "Also allow this tool for…": just this call, this conversation, or the person who asked
 * in any conversation, for a number of hours up to the policy's maximum. Later calls
 * inside the grant run without asking.
 */
export function GrantChoice({ policy, grant, owner, me, disabled }: Props) {
  const name = useId();
  const hoursId = useId();
  const errorId = useId();
  const scopes = policy.scopes.filter((s) => s === 'session' || s === 'user');
  return (
    <fieldset className="hp-grant-choice" disabled={disabled}>
      <legend className="hp-section-label">Also allow this tool for…</legend>
      <label className="hp-choice hp-choice--compact">
        <input
          type="radio"
          name={name}
          checked={grant.scope === 'none'}
          onChange={() => grant.setScope('none')}
        />
        <span>Just this call</span>
      </label>
      {scopes.map((scope) => (
        <label key={scope} className="hp-choice hp-choice--compact">
          <input
            type="radio"
            name={name}
            checked={grant.scope === scope}
            onChange={() => grant.setScope(scope)}
          />
          <span>{scopeLabel(scope, owner, me)}</span>
        </label>
      ))}
      {grant.scope === 'none' ? null : (
        <div className="hp-field hp-field--inline">
          <label htmlFor={hoursId} className="hp-field__label">
            For how many hours <span className="hp-field__optional">(at most {policy.max_hours})</span>
          </label>
          <input
            id={hoursId}
            className="hp-input hp-input--short"
            type="number"
            min={0}
            max={policy.max_hours}
            step="any"
            inputMode="decimal"
            value={grant.hours}
            aria-invalid={grant.error ? true : undefined}
            aria-describedby={grant.error ? errorId : undefined}
            onChange={(event) => grant.setHours(event.target.value)}
          />
          {grant.error ? (
            <p id={errorId} className="hp-field__error">
              {grant.error}
            </p>
          ) : null}
        </div>
      )}
    </fieldset>
  );
}
