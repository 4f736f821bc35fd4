import { slaStepTransition } from '../../session/transitions/index.js';
import { holdChannel } from '../../store/run-relay.js';
import { resumeDecidedRun } from '../commands/resume-run.js';
import type { RuntimeContext } from '../runtime-context.js';
import { forEachDue } from './due-sessions.js';

/** What one pass over the due SLA steps did. */
export interface SlaSweep {
  /** Sessions whose due steps were taken. */
  sessions: number;
  /** Runs a deadline denial resumed; each goes on in the background. */
  resumed: number;
}

/**
 * Takes the SLA steps due now of one session's pending pause (see slaStepTransition) and,
 * when a deadline denial settled the pause, resumes its run in the background as a
 * decision would (or hands it to the segment holding the pause in place). Whether it
 * took any step, and whether it resumed the run.
 */
async function takeDueSteps(ctx: RuntimeContext, sessionId: string) {
  const snapshot = await ctx.requireSnapshot(sessionId);
  // Refused before anything is recorded: a run this instance cannot drive is not taken.
  const app = ctx.requireApp(snapshot.meta.app);
  ctx.requireUnchangedApp(app, snapshot.run);
  const now = ctx.clock.now();
  const lease = ctx.newLease(now);
  const taken = await ctx.store.apply(sessionId, slaStepTransition, [now, lease], snapshot);
  const { pause, outcome } = taken;
  if (!pause || taken.steps === 0) return { stepped: false, resumed: false };
  const log = ctx.log(sessionId, pause.invocationId);
  log.info({ steps: taken.steps, outcome }, 'approval SLA steps taken');
  if (outcome === 'handed') ctx.store.relay.publish(holdChannel(sessionId), { type: 'handed' });
  if (outcome !== 'resumes') return { stepped: true, resumed: false };
  resumeDecidedRun(ctx, app, pause, lease).catch((error: unknown) => {
    // The run is ours under `lease`: if it stops here, it is interrupted and recovered.
    log.warn({ err: error }, 'run resumed by a deadline denial failed');
  });
  return { stepped: true, resumed: true };
}

/**
 * Takes every SLA step due now (reminders, escalations, deadlines), reading only the
 * sessions the store's SLA index holds as due, in bounded batches. One session whose
 * steps cannot be taken (unreadable, its app not served here, changing) is logged and
 * skipped; it never stops the others. A run a deadline denial resumed goes on in the
 * background.
 */
export async function applySlaDue(ctx: RuntimeContext): Promise<SlaSweep> {
  const sweep: SlaSweep = { sessions: 0, resumed: 0 };
  await forEachDue(
    ctx,
    (limit) => ctx.store.listDueSla(ctx.clock.now(), limit),
    async (sessionId) => {
      const { stepped, resumed } = await takeDueSteps(ctx, sessionId);
      if (stepped) sweep.sessions += 1;
      if (resumed) sweep.resumed += 1;
    },
    'could not take the approval SLA steps',
  );
  return sweep;
}
