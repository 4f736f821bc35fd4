import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  APPROVAL_EVENT_TYPES,
  type ApprovalEvent,
  type ApprovalEventType,
} from '../../core/approval-event.js';
import { DeliveryFailure } from '../../runtime/notify/channel.js';
import type { DeliveryRecord } from '../../store/outbox.js';
import { emailChannel, subjectOf } from './email-channel.js';

const event = (type: ApprovalEventType, changes: Partial<ApprovalEvent> = {}) =>
  ({
    type,
    app: 'payments',
    approval: { tool_name: 'send_payment' },
    ...changes,
  }) as ApprovalEvent;

describe('subjectOf', () => {
  it('says what happened to which tool of which app, for every event', () => {
    const subjects = APPROVAL_EVENT_TYPES.map((type) =>
      subjectOf(
        event(type, type === 'decided' ? { decision: { approved: false, decided_by: 'a' } } : {}),
      ),
    );
    expect(subjects).toEqual([
      '[Holdpoint] Approval needed: send_payment (payments)',
      '[Holdpoint] Reminder: approval needed: send_payment (payments)',
      '[Holdpoint] Escalated: approval needed: send_payment (payments)',
      '[Holdpoint] Handed to you: approval needed: send_payment (payments)',
      '[Holdpoint] Rejected: send_payment (payments)',
      '[Holdpoint] Expired: send_payment (payments)',
      '[Holdpoint] Cancelled: send_payment (payments)',
    ]);
  });

  it('keeps a subject on one line whatever a name holds', () => {
    const hostile = event('requested', {
      app: 'pay\r\nBcc: victim@example.com',
      approval: { tool_name: 'x\nX-Injected: 1' } as ApprovalEvent['approval'],
    });
    expect(subjectOf(hostile)).toBe(
      '[Holdpoint] Approval needed: x X-Injected: 1 (pay Bcc: victim@example.com)',
    );
  });
});

describe('emailChannel', () => {
  it('gives up an attempt when it is aborted, to be retried, while the server says nothing', async () => {
    // An SMTP server that accepts the connection and never greets.
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const channel = emailChannel({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'hp@example.com' });
    const abort = new AbortController();
    const connected = new Promise<void>((resolve) => silent.once('connection', () => resolve()));
    const sending = channel
      .send(
        {
          event: event('requested', {
            approval: {
              tool_name: 't',
              args: {},
              hint: '',
              approval_id: 'a',
              kind: 'confirmation',
              expires_at: new Date(0).toISOString(),
            } as unknown as ApprovalEvent['approval'],
          }),
          deliveryId: 'dlv_1',
        } as DeliveryRecord,
        {
          recipient: { audience: 'user:ann', address: { email: 'ann@example.com' } },
          recipientMayDecide: true,
          decisionLink: () => undefined,
          approvalUrl: () => undefined,
          earlier: async () => undefined,
          signal: abort.signal,
        },
      )
      .catch((error: unknown) => error);
    await connected;
    abort.abort();
    const failure = await sending;
    expect(failure).toBeInstanceOf(DeliveryFailure);
    expect(failure).toMatchObject({ retryable: true, message: 'The SMTP server took too long.' });
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('needs a server or a transport', () => {
    expect(() => emailChannel({ from: 'hp@example.com' })).toThrow(/smtpUrl or transport/);
  });
});
