import { useChat } from '@ai-sdk/react';
import type {
  ApiApp,
  ApiApproval,
  ApiDecision,
  ApprovalRequest,
  ChatDecision,
  ChatMessage,
  SessionMessages,
} from 'holdpoint/react';
import {
  type ApiError,
  ApprovalDialog,
  decisionBody,
  ErrorNotice,
  fieldErrorOf,
  type InputChoice,
  inputAnswer,
  isRich,
  type RichApproval,
  rejectIsAnswer,
  stillWaitsNote,
  toApiError,
  withStreamField,
} from 'holdpoint/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { cancelPause, decideApproval, getSessionMessages } from '../api/holdpoint-api';
import { currentUser } from '../identity/identity';
import { appInfo } from './app-info';
import { answersCompleteOnce, approvalResponsesIn } from './auto-send';
import type { ConnectionMode } from './chat-settings';
import { Composer } from './composer';
import { createTransport } from './create-transport';
import { EmptyState } from './empty-state';
import { findPending, sessionIdOf } from './find-pending';
import { MessageList } from './message-list';
import { PendingBanner } from './pending-banner';
import { chatDecision, streamDecisions } from './stream-decisions';
import type { Waiting } from './tool-card';
import { decisionsByApproval, useDecisionLog } from './use-decision-log';
import { useSessionPoll } from './use-session-poll';
import { WaitingPanel } from './waiting-panel';

interface Props {
  /** The apps the server serves. */
  apps: ApiApp[];
  app: string;
  mode: ConnectionMode;
  chatId: string;
  sessionId?: string;
  initialMessages: ChatMessage[];
  initialPending: ApiApproval[];
  /** The session's owner, when it was loaded. */
  initialOwner?: string;
  /** The decisions recorded on its latest pause, when it was loaded. */
  initialDecisions: ApiDecision[];
  /** The session's run was going on when it was read (decided elsewhere, say). */
  initialRunning?: boolean;
  onSessionId: (sessionId: string) => void;
}

/** Errors that mean "this approval cannot be decided any more": reload the truth. */
const STALE = new Set([
  'ALREADY_DECIDED',
  'APPROVAL_EXPIRED',
  'PAUSE_CANCELLED',
  'APPROVAL_NOT_FOUND',
]);

/**
 * Refusals of an answer that record nothing and that the person can correct in the dialog
 * (an edit, a response or a grant the tool's policy or schema does not allow).
 */
const REFUSED = new Set([
  'VALIDATION_FAILED',
  'EDIT_NOT_ALLOWED',
  'RESPOND_NOT_ALLOWED',
  'GRANT_NOT_ALLOWED',
]);

const sameIds = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/** A decision made in this tab, as the decision log will show it: who, when, edit or answer. */
function ownDecision(
  request: ApprovalRequest,
  approved: boolean,
  rich: RichApproval | undefined,
): ApiDecision {
  return {
    approval_id: request.approvalId,
    approved,
    decided_by: currentUser(),
    at: new Date().toISOString(),
    ...(rich?.editedArgs ? { edited_args: rich.editedArgs } : {}),
    ...(rich?.response === undefined ? {} : { response: rich.response }),
  };
}

/** One conversation with one app over one connection mode, approvals included. */
export function ChatSession(props: Props) {
  const { apps, app, mode, chatId, onSessionId } = props;
  const sessionRef = useRef(props.sessionId);
  /** What this tab's stream answers carry beyond yes/no/reason, by approval id (see streamDecisions). */
  const details = useRef(new Map<string, ChatDecision>());
  /** The approvals whose responses this tab has sent in the stream (never sent twice). */
  const sentAnswers = useRef(new Set<string>());
  const transport = useMemo(
    () =>
      createTransport(
        mode,
        () => ({
          app,
          userId: currentUser(),
          ...(sessionRef.current ? { sessionId: sessionRef.current } : {}),
        }),
        (messages) => {
          for (const id of approvalResponsesIn(messages)) sentAnswers.current.add(id);
          return streamDecisions(messages, details.current);
        },
      ),
    [mode, app],
  );
  useEffect(() => () => transport.close?.(), [transport]);

  const chat = useChat<ChatMessage>({
    id: chatId,
    messages: props.initialMessages,
    transport,
    sendAutomaticallyWhen: mode === 'sse' ? answersCompleteOnce(sentAnswers.current) : undefined,
  });
  const { messages, status, error, setMessages, clearError } = chat;
  const streaming = status === 'streaming' || status === 'submitted';

  const [serverPending, setServerPending] = useState(props.initialPending);
  const [owner, setOwner] = useState(props.initialOwner);
  const [pauseDecisions, setPauseDecisions] = useState(props.initialDecisions);
  /**
   * The session's run went on, as the server said last, though this page drives no stream
   * of it: decided elsewhere (another tab, the inbox, an approver's browser), its tool's
   * result may be stored before its last words are. It is read until it ends.
   */
  const goingOnElsewhere = useRef(props.initialRunning === true);
  const [followRun, setFollowRun] = useState(props.initialRunning === true);
  /** Decisions made in this tab, known before the server's log says so. */
  const [ownDecisions, setOwnDecisions] = useState<ApiDecision[]>([]);
  const [logVersion, setLogVersion] = useState(0);
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<ApiError>();
  const [decided, setDecided] = useState<ReadonlySet<string>>(new Set());
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [decisionError, setDecisionError] = useState<ApiError>();
  const [notice, setNotice] = useState<ApiError>();
  /** What became of the last decision when the pause still waits for it (another approver). */
  const [stillWaits, setStillWaits] = useState<string>();
  /** An edit, response or grant answered in the stream, its dialog kept open until its turn ends. */
  const [inFlight, setInFlight] = useState<{
    request: ApprovalRequest;
    rich: RichApproval;
    /** The messages before the answer, to put back if the server refuses it. */
    snapshot: ChatMessage[];
  }>();

  const sessionId = sessionIdOf(messages) ?? props.sessionId;
  useEffect(() => {
    if (sessionId && sessionId !== sessionRef.current) {
      sessionRef.current = sessionId;
      onSessionId(sessionId);
    }
  }, [sessionId, onSessionId]);

  const pending = findPending(messages, serverPending).filter((p) => !decided.has(p.approvalId));
  // Only someone the server says may decide is asked; the others see whom it waits for.
  const yours = pending.filter((p) => p.canDecide === true);
  const othersDecide = pending.filter((p) => p.canDecide === false);
  const current = inFlight?.request ?? yours.find((p) => !dismissed.has(p.approvalId));
  // Once nothing waits here any more, the pause no longer waits for another approver.
  useEffect(() => {
    if (pending.length === 0) setStillWaits(undefined);
  }, [pending.length]);
  const loggedDecisions = useDecisionLog(sessionId, logVersion);
  const decisions = decisionsByApproval(loggedDecisions, pauseDecisions, ownDecisions);

  // Whatever the server says is only applied when nothing happened here since it was asked.
  const lastChange = useRef(Date.now());
  const messagesRef = useRef(messages);
  messagesRef.current = messages;
  const streamingRef = useRef(streaming);
  streamingRef.current = streaming;
  useEffect(() => {
    lastChange.current = Date.now();
    // A stream that ended may have carried decisions: read who made them.
    if (status === 'ready') setLogVersion((v) => v + 1);
  }, [status]);

  /** What the server says about the session beside its messages. */
  const learn = useCallback((state: SessionMessages) => {
    setServerPending(state.pending_approvals);
    setOwner(state.user_id);
    setPauseDecisions(state.pause?.decisions ?? []);
    goingOnElsewhere.current = state.status === 'running';
    setFollowRun(state.status === 'running');
  }, []);

  const adopt = useCallback(
    (state: SessionMessages) => {
      setMessages(state.messages);
      learn(state);
      setDecided(new Set());
      setLogVersion((v) => v + 1);
    },
    [setMessages, learn],
  );

  const refresh = useCallback(async () => {
    if (!sessionRef.current) return;
    adopt(await getSessionMessages(sessionRef.current));
  }, [adopt]);

  // A turn that carried an edit, a response or a grant ended. Refused (nothing recorded):
  // the approval is put back as it was asked, and the dialog, kept open meanwhile, shows
  // why beside the field, to be corrected. Recorded: the stream's message shows the approval
  // answered, not whether the pause still waits on it (an edit that needs another approver)
  // nor the call as it now stands: read the session back and say so.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a turn ends, not on every render.
  useEffect(() => {
    const sent = inFlight;
    if (!sent || streaming) return;
    const id = sent.request.approvalId;
    setInFlight(undefined);
    const failure = error ? toApiError(error) : undefined;
    if (failure && REFUSED.has(failure.code)) {
      details.current.delete(id);
      setMessages(sent.snapshot);
      clearError();
      setDecisionError(withStreamField(failure, sent.rich));
      return;
    }
    // Any other failure keeps the answer's details: Retry sends them again, never a plain yes.
    if (failure || !sessionRef.current) return;
    details.current.delete(id);
    // Known here before the audit log says it (which only the owner may read).
    setOwnDecisions((prev) => [...prev, ownDecision(sent.request, true, sent.rich)]);
    void getSessionMessages(sessionRef.current).then(
      (state) => {
        adopt(state);
        const waits = state.pending_approvals.some((a) => a.approval_id === id);
        setStillWaits(stillWaitsNote(waits, sent.rich));
      },
      () => undefined,
    );
  }, [status]);

  const following = (pending.length > 0 || followRun) && !busy && !cancelling;
  useSessionPoll(sessionId, following, (state, askedAt) => {
    const wentOn = goingOnElsewhere.current;
    learn(state);
    if (askedAt < lastChange.current || streamingRef.current) return;
    const local = findPending(messagesRef.current).map((p) => p.toolCallId);
    const remote = state.pending_approvals.map((a) => a.tool_call_id);
    // A run that went on elsewhere shows what it did once it moved on (ended, or paused).
    if (!sameIds(local, remote) || (wentOn && state.status !== 'running')) adopt(state);
  });

  // A stream error that says the approval is settled elsewhere, or that the call changed
  // (someone's edit): show the server's truth.
  const streamError = error ? toApiError(error) : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-run on a new error code, not on every error object.
  useEffect(() => {
    if (streamError && (STALE.has(streamError.code) || streamError.code === 'ARGS_MISMATCH')) {
      void refresh().catch(() => undefined);
    }
  }, [streamError?.code, refresh]);

  const send = (text: string) => {
    lastChange.current = Date.now();
    setNotice(undefined);
    void chat.sendMessage({ text });
  };

  const retry = () => {
    clearError();
    void chat.sendMessage();
  };

  const decideInStream = async (
    request: ApprovalRequest,
    approved: boolean,
    choice?: InputChoice,
    reason?: string,
    rich?: RichApproval,
  ) => {
    const { toolName: tool, toolCallId } = request;
    if (request.kind === 'confirmation') {
      const detail = approved ? chatDecision(request, rich) : undefined;
      if (detail) details.current.set(request.approvalId, detail);
      else details.current.delete(request.approvalId);
      if (isRich(rich)) setInFlight({ request, rich, snapshot: messagesRef.current });
      // Answered anew (asked again after a refusal or someone's edit): it is to be sent.
      sentAnswers.current.delete(request.approvalId);
      await chat.addToolApprovalResponse({ id: request.approvalId, approved, reason });
    } else if (approved || rejectIsAnswer(request)) {
      await chat.addToolOutput({
        tool,
        toolCallId,
        output: inputAnswer(request, approved, choice),
      });
    } else {
      const errorText = reason ? `Rejected: ${reason}` : 'Rejected';
      await chat.addToolOutput({ state: 'output-error', tool, toolCallId, errorText });
    }
  };

  const decideByRest = async (
    request: ApprovalRequest,
    approved: boolean,
    choice?: InputChoice,
    reason?: string,
    rich?: RichApproval,
  ) => {
    const body = decisionBody(request, approved, { choice, reason, rich });
    const outcome = await decideApproval(request.approvalId, body, currentUser());
    setDecided((prev) => new Set(prev).add(request.approvalId));
    const waits =
      outcome.status === 'pending_approval' &&
      outcome.approvals.some((a) => a.approval_id === request.approvalId);
    setStillWaits(stillWaitsNote(waits, rich));
    setOwnDecisions((prev) => [...prev, ownDecision(request, approved, rich)]);
    // An open stream carries the result; without one (reloaded, parked) read it back.
    if (!streamingRef.current) await refresh();
  };

  const decide = async (
    request: ApprovalRequest,
    approved: boolean,
    choice?: InputChoice,
    reason?: string,
    rich?: RichApproval,
  ) => {
    lastChange.current = Date.now();
    setDecisionError(undefined);
    setNotice(undefined);
    setStillWaits(undefined);
    clearError();
    setBusy(true);
    try {
      if (mode === 'sse' && !streaming)
        await decideInStream(request, approved, choice, reason, rich);
      else await decideByRest(request, approved, choice, reason, rich);
    } catch (caught) {
      const failure = toApiError(caught);
      if (STALE.has(failure.code)) {
        setNotice(failure);
        setDecided((prev) => new Set(prev).add(request.approvalId));
        await refresh().catch(() => undefined);
      } else if (failure.code === 'ARGS_MISMATCH') {
        // Someone's edit changed the call meanwhile: show it as it stands now, to decide again.
        setNotice(failure);
        await refresh().catch(() => undefined);
      } else {
        setDecisionError(failure);
      }
    } finally {
      lastChange.current = Date.now();
      setBusy(false);
      setLogVersion((v) => v + 1);
    }
  };

  /** Cancels the pause (its owner's way out when only others may decide). */
  const cancel = async () => {
    if (!sessionRef.current) return;
    lastChange.current = Date.now();
    setCancelError(undefined);
    setNotice(undefined);
    setCancelling(true);
    try {
      await cancelPause(sessionRef.current, 'cancelled by the requester in the web UI');
      // An open stream ends with the cancellation; without one, read the session back.
      if (!streamingRef.current) await refresh();
    } catch (caught) {
      const failure = toApiError(caught);
      if (STALE.has(failure.code) || failure.code === 'NO_PENDING_APPROVAL') {
        setNotice(failure);
        await refresh().catch(() => undefined);
      } else {
        setCancelError(failure);
      }
    } finally {
      lastChange.current = Date.now();
      setCancelling(false);
    }
  };

  const reopen = (approvalId?: string) => {
    setDismissed((prev) => {
      const next = new Set(prev);
      if (approvalId) next.delete(approvalId);
      else next.clear();
      return next;
    });
  };

  const info = appInfo(apps, app);
  const waiting = new Map<string, Waiting>(
    pending.map((p) => [
      p.toolCallId,
      p.canDecide === undefined ? 'checking' : p.canDecide ? 'you' : 'others',
    ]),
  );
  const first = yours[0];
  const othersFirst = othersDecide[0];

  return (
    <div className="chat">
      <div className="chat__scroll">
        {messages.length === 0 ? (
          <EmptyState app={info} disabled={streaming} onPick={send} />
        ) : (
          <MessageList
            messages={messages}
            waiting={waiting}
            decisions={decisions}
            busy={streaming}
            onReview={(toolCallId) =>
              reopen(pending.find((p) => p.toolCallId === toolCallId)?.approvalId)
            }
          />
        )}
      </div>
      <div className="chat__dock">
        {notice ? <ErrorNotice error={notice} onDismiss={() => setNotice(undefined)} /> : null}
        {stillWaits ? (
          <p className="hp-notice hp-notice--info" role="status">
            {stillWaits}
          </p>
        ) : null}
        {streamError ? (
          <ErrorNotice error={streamError} onRetry={retry} onDismiss={clearError} />
        ) : null}
        {first && !current ? (
          <PendingBanner request={first} count={yours.length} onReview={() => reopen()} />
        ) : null}
        {othersFirst && !first ? (
          <WaitingPanel
            request={othersFirst}
            count={othersDecide.length}
            owner={owner}
            user={currentUser()}
            votes={decisions.get(othersFirst.approvalId) ?? []}
            busy={cancelling}
            error={cancelError ? <ErrorNotice error={cancelError} /> : undefined}
            onCancel={() => void cancel()}
          />
        ) : null}
        <Composer
          onSend={send}
          onStop={() => void chat.stop()}
          streaming={streaming}
          disabled={streaming || pending.length > 0}
          disabledReason={
            othersFirst && !first
              ? 'Waiting for an approver…'
              : pending.length > 0
                ? 'Waiting for an approval…'
                : 'The agent is working…'
          }
        />
      </div>
      {current ? (
        <ApprovalDialog
          // A call someone's edit changed (a new hash) is a new question: its form starts afresh.
          key={`${current.approvalId}-${current.argsHash ?? ''}`}
          request={current}
          app={info.label}
          busy={busy || inFlight !== undefined}
          error={decisionError ? <ErrorNotice error={decisionError} /> : undefined}
          fieldError={fieldErrorOf(decisionError)}
          owner={owner}
          me={currentUser()}
          onApprove={(choice, rich) => void decide(current, true, choice, undefined, rich)}
          onReject={(reason) => void decide(current, false, undefined, reason)}
          onClose={() => setDismissed((prev) => new Set(prev).add(current.approvalId))}
        />
      ) : null}
    </div>
  );
}
