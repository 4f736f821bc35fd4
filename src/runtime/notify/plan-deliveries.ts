import {
  type ApprovalEvent,
  type ApprovalEventType,
  isApprovalEventType,
} from '../../core/approval-event.js';
import type { ApprovalRequest, AuditEntry, Pause } from '../../core/types.js';
import { approvalAudiences } from '../../session/decision/approvers.js';
import {
  approversInForce,
  currentArgs,
  currentArgsHash,
  currentHint,
  settlingDecision,
} from '../../session/decision/settlement.js';
import { type DeliveryPlanner, type DeliveryRecord, deliveryIdOf } from '../../store/outbox.js';
import type { SessionSnapshot, SessionWrites } from '../../store/store.js';
import type { NotificationChannel } from './channel.js';
import { memberAudiencesOf } from './directory-members.js';
import type { NotificationDirectory } from './notification-options.js';

/** What the planner needs of a channel: its name and whether it sends per person or per event. */
export type PlannedChannel = Pick<NotificationChannel, 'name' | 'audience'>;

/** The recipient of an `endpoint` channel's deliveries: the channel itself. */
export function endpointRecipient(channel: string): string {
  return `endpoint:${channel}`;
}

/** Where `approval` stands once the commit is stored. */
function approvalStatus(
  pause: Pause,
  approval: ApprovalRequest,
): ApprovalEvent['approval']['status'] {
  const settled = settlingDecision(pause, approval);
  if (settled) return settled.approved ? 'approved' : 'denied';
  if (pause.status === 'expired' || pause.status === 'cancelled') return pause.status;
  return 'pending';
}

/** The pause holding approval `approvalId`: as the commit writes it, else as it was read. */
function pauseOf(
  approvalId: string,
  before: SessionSnapshot | undefined,
  writes: SessionWrites,
): Pause | undefined {
  const holds = (pause: Pause | undefined) =>
    pause?.approvals.some((approval) => approval.approvalId === approvalId) ? pause : undefined;
  return writes.pauses?.find(holds) ?? holds(before?.pause);
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The event an approval audit line announces. `step` counts the line's kind for its
 * approval (the nth reminder, the nth escalation step), from what was stored before.
 */
function approvalEventOf(
  line: AuditEntry & { approvalId: string; hash: string },
  type: ApprovalEventType,
  pause: Pause,
  approval: ApprovalRequest,
  step: number,
): ApprovalEvent {
  const approvers = approversInForce(pause.decisions, approval);
  return {
    v: 1,
    id: line.hash,
    type,
    at: iso(line.at),
    app: pause.app,
    session_id: pause.sessionId,
    invocation_id: pause.invocationId,
    pause_id: pause.pauseId,
    actor: line.actor,
    user_id: pause.userId,
    approval: {
      approval_id: approval.approvalId,
      kind: approval.kind,
      tool_name: approval.toolName,
      // As they stand once the commit is stored: an approved edit's, which a message's
      // buttons and links must name to decide what is now asked, and the quorum it asks.
      args: currentArgs(pause, approval),
      args_hash: currentArgsHash(pause, approval),
      hint: currentHint(pause, approval),
      created_at: iso(approval.createdAt),
      expires_at: iso(approval.expiresAt),
      approvers: {
        owner: approvers.owner,
        roles: approvers.roles,
        users: approvers.users,
        quorum: approvers.quorum,
        requester_may_approve: approvers.requesterMayApprove,
      },
      status: approvalStatus(pause, approval),
    },
    ...(type === 'decided'
      ? {
          decision: {
            approved: line.approved ?? false,
            decided_by: line.actor,
            ...(line.reason === undefined ? {} : { reason: line.reason }),
            ...(line.onBehalfOf === undefined ? {} : { on_behalf_of: line.onBehalfOf }),
            ...(line.channel === undefined ? {} : { channel: line.channel }),
          },
        }
      : {}),
    ...(type === 'reminded' ? { reminder: { count: step } } : {}),
    ...(type === 'escalated' ? { escalation: { level: step, to: line.to ?? [] } } : {}),
    ...(type === 'delegated' ? { delegation: { from: line.actor, to: line.to ?? [] } } : {}),
  };
}

/** How many reminders or escalation steps `approval` had before this commit. */
function stepsBefore(
  type: ApprovalEventType,
  approvalId: string,
  before: SessionSnapshot | undefined,
): number {
  const approval = before?.pause?.approvals.find((a) => a.approvalId === approvalId);
  if (type === 'reminded') return approval?.slaState?.reminders ?? 0;
  if (type === 'escalated') return approval?.slaState?.escalations ?? 0;
  return 0;
}

/** `audiences`, each role followed by the people the directory lists as its members. */
function withMembers(
  audiences: readonly string[],
  directory: NotificationDirectory | undefined,
): Set<string> {
  return new Set(
    audiences.flatMap((audience) =>
      audience.startsWith('role:')
        ? [audience, ...memberAudiencesOf(directory, audience.slice('role:'.length))]
        : [audience],
    ),
  );
}

/**
 * The deliveries announcing the approval events of a commit (pure): for each chained
 * audit line whose action is an approval event and that names an approval, the event
 * (its id the line's hash), through the approval's `notify.channels` (default: every
 * channel). An `endpoint` channel gets it once (`endpoint:<name>`); a `people` channel
 * once per audience: those who may decide it and the rule's `notify.to` — only the
 * audiences a line adds (`to`) for an escalation or a delegation — each role followed
 * by its members in `directory` (each reached at their own address). Each is due when
 * its line was written (the runtime's clock), under its stable id (`deliveryIdOf`).
 */
export function planDeliveries(
  before: SessionSnapshot | undefined,
  writes: SessionWrites,
  channels: readonly PlannedChannel[],
  directory?: NotificationDirectory,
): DeliveryRecord[] {
  const deliveries: DeliveryRecord[] = [];
  const steps = new Map<string, number>();
  for (const line of writes.audit) {
    const { approvalId, hash, action } = line;
    if (!approvalId || !hash || !isApprovalEventType(action)) continue;
    const pause = pauseOf(approvalId, before, writes);
    const approval = pause?.approvals.find((a) => a.approvalId === approvalId);
    if (!pause || !approval) continue;
    const stepKey = `${action}|${approvalId}`;
    const step = (steps.get(stepKey) ?? stepsBefore(action, approvalId, before)) + 1;
    steps.set(stepKey, step);
    const event = approvalEventOf({ ...line, approvalId, hash }, action, pause, approval, step);
    const rule = approval.notify;
    const people =
      action === 'escalated' || action === 'delegated'
        ? (line.to ?? [])
        : [...approvalAudiences(approval, pause.userId), ...(rule?.to ?? [])];
    for (const channel of channels) {
      if (rule?.channels && !rule.channels.includes(channel.name)) continue;
      const recipients =
        channel.audience === 'endpoint'
          ? [endpointRecipient(channel.name)]
          : withMembers(people, directory);
      for (const recipient of recipients) {
        deliveries.push({
          deliveryId: deliveryIdOf(hash, channel.name, recipient),
          eventId: hash,
          event,
          channel: channel.name,
          recipient,
          status: 'pending',
          attempts: 0,
          nextAttemptAt: line.at,
          createdAt: line.at,
          updatedAt: line.at,
          version: 1,
        });
      }
    }
  }
  return deliveries;
}

/** The outbox planner for `channels` and `directory` (the store calls it inside each commit). */
export function deliveryPlanner(
  channels: readonly PlannedChannel[],
  directory?: NotificationDirectory,
): DeliveryPlanner {
  return (before, writes) => planDeliveries(before, writes, channels, directory);
}
