/**
 * The `whatsapp_messages` table: the bridge's durable outbox. A message is stored before its
 * webhook is answered; the worker leases one due row at a time (`for update skip locked`, so
 * replicas share the work and a dead replica's row is taken again when its lease ends), stores
 * the reply's text before sending it, and records the send. The lease doubles as "not before"
 * after a failed try.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';

export type ReplyKind = 'answer' | 'text_only' | 'slow_down' | 'none';

export interface OutboxMessage {
  id: string;
  integration_id: string;
  workspace_id: string;
  wa_message_id: string;
  sender: string;
  message_type: string;
  body: string | null;
  reply_kind: ReplyKind;
  state: 'pending' | 'answered' | 'sent' | 'failed' | 'skipped';
  reply: string | null;
  chat_message_id: string | null;
  reply_id: string | null;
  attempts: number;
  last_error: string | null;
  received_at: Date;
  sent_at: Date | null;
}

export interface NewInbound {
  integrationId: string;
  workspaceId: string;
  waMessageId: string;
  sender: string;
  messageType: string;
  body: string | undefined;
  replyKind: ReplyKind;
}

export function createOutboxRepository(pool: pg.Pool) {
  return {
    /** Whether the integration has this message already (a retried delivery). */
    async has(integrationId: string, waMessageId: string): Promise<boolean> {
      const { rows } = await pool.query(
        'select 1 from whatsapp_messages where integration_id = $1 and wa_message_id = $2',
        [integrationId, waMessageId],
      );
      return rows.length > 0;
    },

    /** Stores a message; false when it was there already. A `none` reply is stored `skipped`. */
    async insert(message: NewInbound): Promise<boolean> {
      const { rowCount } = await pool.query(
        `insert into whatsapp_messages
           (id, integration_id, workspace_id, wa_message_id, sender, message_type, body,
            reply_kind, state)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict (integration_id, wa_message_id) do nothing`,
        [
          randomUUID(),
          message.integrationId,
          message.workspaceId,
          message.waMessageId,
          message.sender,
          message.messageType,
          message.body ?? null,
          message.replyKind,
          message.replyKind === 'none' ? 'skipped' : 'pending',
        ],
      );
      return rowCount === 1;
    },

    /**
     * The oldest due message whose sender has no earlier one still waiting (replies keep their
     * order), leased for `leaseSeconds`.
     */
    async lease(leaseSeconds: number): Promise<OutboxMessage | undefined> {
      const { rows } = await pool.query<OutboxMessage>(
        `update whatsapp_messages set lease_until = now() + make_interval(secs => $1)
         where id = (
           select m.id from whatsapp_messages m
           where m.state in ('pending', 'answered')
             and (m.lease_until is null or m.lease_until < now())
             and not exists (
               select 1 from whatsapp_messages e
               where e.integration_id = m.integration_id and e.sender = m.sender
                 and e.state in ('pending', 'answered')
                 and (e.received_at, e.id) < (m.received_at, m.id))
           order by m.received_at limit 1 for update skip locked)
         returning *`,
        [leaseSeconds],
      );
      return rows[0];
    },

    async renewLease(id: string, leaseSeconds: number): Promise<void> {
      await pool.query(
        'update whatsapp_messages set lease_until = now() + make_interval(secs => $2) where id = $1',
        [id, leaseSeconds],
      );
    },

    /** Lets the next round (of any replica) take the message again. */
    async release(id: string): Promise<void> {
      await pool.query('update whatsapp_messages set lease_until = null where id = $1', [id]);
    },

    /** The reply is written: from now on it is sent, never produced again. */
    async answered(id: string, reply: string, chatMessageId: string | null): Promise<void> {
      await pool.query(
        `update whatsapp_messages set state = 'answered', reply = $2, chat_message_id = $3,
           updated_at = now()
         where id = $1 and state = 'pending'`,
        [id, reply, chatMessageId],
      );
    },

    async sent(id: string, replyId: string): Promise<void> {
      await pool.query(
        `update whatsapp_messages set state = 'sent', reply_id = $2, sent_at = now(),
           lease_until = null, last_error = null, updated_at = now()
         where id = $1`,
        [id, replyId],
      );
    },

    /** A failed try: given up (`failed`), or tried again not before `pauseSeconds`. */
    async failed(
      id: string,
      outcome: { giveUp: boolean; error: string; pauseSeconds: number },
    ): Promise<void> {
      await pool.query(
        `update whatsapp_messages set attempts = attempts + 1, last_error = $2,
           state = case when $3 then 'failed' else state end,
           lease_until = case when $3 then null else now() + make_interval(secs => $4) end,
           updated_at = now()
         where id = $1`,
        [id, outcome.error, outcome.giveUp, outcome.pauseSeconds],
      );
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
