import type { Principal } from '../../../core/principal.js';
import type { OperationCall } from '../operations/index.js';

/** Runs an operation's act: directly, or once per idempotency key (`idempotency`). */
export type RunAct = (act: (requestId?: string) => Promise<unknown>) => Promise<unknown>;

/** The Hono context of an operation's route: the caller, the call as read, how it runs. */
export type OperationEnv = {
  Variables: {
    principal: Principal;
    call: OperationCall<object, object>;
    runAct: RunAct;
  };
};
