import type { ApiGrant } from 'holdpoint/react';
import { type ApiError, ErrorNotice, humanizeToolName, toApiError, useNow } from 'holdpoint/react';
import { useState } from 'react';
import { revokeGrant } from '../api/holdpoint-api';
import { useCurrentUser } from '../identity/identity';
import { GrantRow, type RevokeStep } from './grant-row';
import { useGrants } from './use-grants';

/**
 * The signed-in person's grants (later calls of a tool allowed without asking), newest
 * first, in force or not; one in force is revoked in place, after a confirmation.
 */
export function GrantsPage() {
  const user = useCurrentUser();
  const { grants, loading, error, hasMore, reload, showMore, replace } = useGrants(user);
  const now = useNow(5000);
  const [steps, setSteps] = useState<Map<string, RevokeStep>>(new Map());
  const [revokeError, setRevokeError] = useState<ApiError>();
  const [announced, setAnnounced] = useState('');

  const setStep = (grantId: string, step: RevokeStep | undefined) =>
    setSteps((prev) => {
      const next = new Map(prev);
      if (step) next.set(grantId, step);
      else next.delete(grantId);
      return next;
    });

  const revoke = async (grant: ApiGrant) => {
    setStep(grant.grant_id, 'revoking');
    setRevokeError(undefined);
    try {
      const revoked = await revokeGrant(grant.grant_id);
      replace(revoked);
      setStep(grant.grant_id, 'revoked');
      setAnnounced(`${humanizeToolName(grant.tool_name)} (${grant.app}) revoked.`);
    } catch (caught) {
      const failure = toApiError(caught);
      setStep(grant.grant_id, undefined);
      setRevokeError(failure);
      // Gone (or never the caller's to revoke): show the list as it stands now.
      if (failure.code === 'GRANT_NOT_FOUND') void reload();
    }
  };

  const inForce = grants.filter((g) => g.in_force && g.revoked_at === undefined).length;

  return (
    <main className="page page--grants" id="main">
      <header className="page__header">
        <div>
          <h1 className="page__title">Your grants</h1>
          <p className="page__subtitle">
            Tools allowed for <strong>{user}</strong> without asking, for a while; newest first.
          </p>
        </div>
        <div className="page__actions">
          <button
            type="button"
            className="hp-button hp-button--secondary"
            onClick={() => void reload()}
          >
            Refresh
          </button>
        </div>
      </header>
      {error ? <ErrorNotice error={error} onRetry={() => void reload()} /> : null}
      {revokeError ? (
        <ErrorNotice error={revokeError} onDismiss={() => setRevokeError(undefined)} />
      ) : null}
      <p className="hp-visually-hidden" role="status">
        {announced}
      </p>
      {loading && grants.length === 0 ? (
        <p className="hp-loading" role="status">
          Loading grants…
        </p>
      ) : null}
      {!loading && grants.length === 0 && !error ? (
        <div className="hp-inbox-empty">
          <p className="hp-inbox-empty__title">No grants</p>
          <p>
            When someone approves a call of yours “and allows this tool for a while”, the grant
            shows up here, and you can revoke it.
          </p>
        </div>
      ) : null}
      {grants.length > 0 ? (
        <>
          <div className="grants-table__frame">
            <table className="grants-table">
              <caption className="hp-visually-hidden">
                Your grants: {inForce} in force, {grants.length} listed
              </caption>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">App</th>
                  <th scope="col">Where</th>
                  <th scope="col">Calls covered</th>
                  <th scope="col">Granted by</th>
                  <th scope="col">State</th>
                  <th scope="col">
                    <span className="hp-visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {grants.map((grant) => (
                  <GrantRow
                    key={grant.grant_id}
                    grant={grant}
                    now={now}
                    step={steps.get(grant.grant_id)}
                    onRevoke={() => setStep(grant.grant_id, 'confirming')}
                    onConfirm={() => void revoke(grant)}
                    onCancel={() => setStep(grant.grant_id, undefined)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          {hasMore ? (
            <button type="button" className="hp-button hp-button--secondary" onClick={showMore}>
              Show more
            </button>
          ) : null}
        </>
      ) : null}
    </main>
  );
}
