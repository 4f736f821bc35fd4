import { auditLine } from '../../../core/audit-line.js';
import { LIMITS } from '../../../core/limits.js';
import { auditNdjson } from '../audit-export.js';
import * as wire from '../wire/index.js';
import { defineOperation } from './operation.js';

/** `GET /api/audit`: a session's audit log, a page at a time or all of it as NDJSON. */
export const auditOperations = [
  defineOperation({
    name: 'readAudit',
    method: 'get',
    path: '/api/audit',
    summary: "A session's audit log, oldest first: a page, or (`format=ndjson`) all of it.",
    description:
      'Each line is hash-chained to the one before; `holdpoint audit verify` checks an export (docs/audit.md#export-and-verify).',
    query: wire.auditQuery,
    act: async ({ query, by, runtime, logger }) => {
      if (query.format === 'ndjson') {
        const sessionId = query.session_id;
        const rows = await auditNdjson(
          sessionId,
          (cursor) =>
            runtime.operations.readAudit({ sessionId, limit: LIMITS.pageSize, cursor }, by),
          logger.child({ session_id: sessionId }),
        );
        return new Response(rows, { headers: { 'content-type': 'application/x-ndjson' } });
      }
      return runtime.operations.readAudit(
        { sessionId: query.session_id, limit: query.limit, cursor: query.cursor },
        by,
      );
    },
    answer: wire.auditPage,
    present: (page, { query }) => ({
      session_id: query.session_id,
      entries: page.entries.map(auditLine),
      ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
    }),
    alsoAnswers: {
      contentType: 'application/x-ndjson',
      description:
        'With `format=ndjson`: a header row naming the session (`{"export":"audit","v":1,"session_id":…}`), then every line of the log, one JSON audit line a row.',
    },
  }),
];
