/**
 * The Telegram Bot API's `sendMessage` (`POST /bot<token>/sendMessage`, JSON or form): answers
 * `{ ok: true, result: Message }` for the configured bot token, Telegram's 401/400 otherwise.
 */
import { startDoubleServer, type DoubleServer } from './double-server';

export interface SentMessage {
  chatId: string;
  text: string;
  parseMode?: string;
}

export interface TelegramDouble extends DoubleServer {
  messages: SentMessage[];
}

export async function startTelegramDouble(options: { botToken: string }): Promise<TelegramDouble> {
  const messages: SentMessage[] = [];
  const { server } = await startDoubleServer((app) => {
    app.post('/:bot/sendMessage', (req, res) => {
      if (req.params.bot !== `bot${options.botToken}`) {
        res.status(401).json({ ok: false, error_code: 401, description: 'Unauthorized' });
        return;
      }
      const body = (req.body ?? {}) as Record<string, unknown>;
      const chatId = body.chat_id;
      if (
        (typeof chatId !== 'string' && typeof chatId !== 'number') ||
        typeof body.text !== 'string' ||
        body.text === ''
      ) {
        res
          .status(400)
          .json({ ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
        return;
      }
      messages.push({
        chatId: String(chatId),
        text: body.text,
        ...(typeof body.parse_mode === 'string' ? { parseMode: body.parse_mode } : {}),
      });
      res.json({
        ok: true,
        result: {
          message_id: messages.length,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId, type: 'group' },
          text: body.text,
        },
      });
    });
  });
  return { ...server, messages };
}
