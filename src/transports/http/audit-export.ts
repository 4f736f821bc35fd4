import type { Logger } from 'pino';
import { LIMITS } from '../../core/limits.js';
import type { HoldpointRuntime } from '../../runtime/holdpoint-runtime.js';
import type { AuditPage } from '../../runtime/queries/audit-log.js';
import { presentAudit } from './present.js';

/**
 * A session's whole audit log as NDJSON, oldest first: one presented line (the form
 * its hash covers) per row, read a page at a time as the client takes them. The first
 * page is read before anything is sent, so an unknown session is an error answer. A
 * page that fails later is logged and errors the stream: the body is cut short, never
 * ended as if the log were complete.
 */
export async function auditNdjson(
  runtime: HoldpointRuntime,
  sessionId: string,
  logger: Logger,
): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  const read = (cursor?: string) => runtime.audit({ sessionId, limit: LIMITS.pageSize, cursor });
  let page: AuditPage | undefined = await read();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!page) {
        controller.close();
        return;
      }
      const rows = page.entries.map((entry) => `${JSON.stringify(presentAudit(entry))}\n`);
      if (rows.length > 0) controller.enqueue(encoder.encode(rows.join('')));
      try {
        page = page.nextCursor === undefined ? undefined : await read(page.nextCursor);
      } catch (error) {
        logger.error({ err: error, session_id: sessionId }, 'audit export cut short');
        controller.error(error);
      }
    },
  });
}
