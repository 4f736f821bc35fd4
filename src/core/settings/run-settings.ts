import { z } from 'zod';
import { setting } from './setting.js';

/** How long pauses wait, and how runs hold, end and recover. */
export const RUN_SETTINGS = {
  pauseTtlSeconds: setting({
    schema: z.number().positive(),
    option: true,
    default: 3600,
    flag: 'pause-ttl',
    env: 'HOLDPOINT_PAUSE_TTL_SECONDS',
    placeholder: 'SECONDS',
    doc: 'how long a pause waits before it expires',
  }),
  sweepIntervalSeconds: setting({
    schema: z.number().positive(),
    default: 5,
    flag: 'sweep-interval',
    env: 'HOLDPOINT_SWEEP_INTERVAL_SECONDS',
    placeholder: 'SECONDS',
    doc: 'how often pauses past their time are recorded (only due ones are read; instances sharing a Redis take turns)',
  }),
  runLeaseSeconds: setting({
    schema: z.number().min(3),
    option: true,
    default: 30,
    flag: 'run-lease',
    env: 'HOLDPOINT_RUN_LEASE_SECONDS',
    placeholder: 'SECONDS',
    doc: 'how long a running segment holds its session without renewing (it renews every third of that while it works); a process that dies frees its sessions this soon',
  }),
  recover: setting({
    schema: z.enum(['auto', 'manual']),
    option: true,
    default: 'manual',
    flag: 'recover',
    env: 'HOLDPOINT_RECOVER',
    placeholder: 'auto|manual',
    doc: 'runs whose process stopped mid-run (`interrupted`): `auto` resumes them from the sweeper (one instance at a time); `manual` lists them in `GET /api/runs?status=interrupted` for `POST /api/runs/:id/resume` or `holdpoint resume <id>`',
  }),
  approvalTimeoutSeconds: setting({
    schema: z.number().positive(),
    option: true,
    default: 30,
    flag: 'approval-timeout',
    env: 'HOLDPOINT_APPROVAL_TIMEOUT_SECONDS',
    placeholder: 'SECONDS',
    doc: "continuous (WebSocket) streams: how long to wait for an approval, and how long a tool's `waitForApproval` is held in memory before the run is left to resume later ([library.md](library.md#await-approvals-inline-waitforapproval)), unless the tool sets its own",
  }),
  approvalTimeoutPolicy: setting({
    schema: z.enum(['deny', 'park']),
    option: true,
    default: 'park',
    flag: 'approval-timeout-policy',
    env: 'HOLDPOINT_APPROVAL_TIMEOUT_POLICY',
    placeholder: 'deny|park',
    doc: 'what a timed-out approval becomes, unless the tool sets its own: `deny` (recorded as a denial, reason "timed out") or `park` (the stream ends, the pause stays stored)',
  }),
};
