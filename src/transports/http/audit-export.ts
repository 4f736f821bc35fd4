import type { Logger } from 'pino';
import { auditExportHeader } from '../../core/audit-export.js';
import { auditLine } from '../../core/audit-line.js';
import type { AuditPage } from '../../runtime/queries/audit-log.js';

/**
 * A session's whole audit log as NDJSON, oldest first: its header (the session asked
 * for, auditExportHeader), then one presented line (the form its hash covers) per row,
 * read with `readPage` (the first page, then each page's `nextCursor`) as the client
 * takes them. The first page is read before anything is sent, so an unknown session (or
 * a caller refused it) is an error answer. A page that fails later is logged and errors
 * the stream: the body is cut short, never ended as if the log were complete.
 */
export async function auditNdjson(
  sessionId: string,
  readPage: (cursor?: string) => Promise<AuditPage>,
  logger: Logger,
): Promise<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  let page: AuditPage | undefined = await readPage();
  let header: string | undefined = `${JSON.stringify(auditExportHeader(sessionId))}\n`;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!page) {
        controller.close();
        return;
      }
      const rows = page.entries.map((entry) => `${JSON.stringify(auditLine(entry))}\n`);
      const chunk = (header ?? '') + rows.join('');
      header = undefined;
      if (chunk !== '') controller.enqueue(encoder.encode(chunk));
      try {
        page = page.nextCursor === undefined ? undefined : await readPage(page.nextCursor);
      } catch (error) {
        logger.error({ err: error }, 'audit export cut short');
        controller.error(error);
      }
    },
  });
}
