/**
 * @pelita/vendor-doubles: Infisical, GitLab and Telegram Bot API doubles for the license service's
 * tests; the WhatsApp Business Cloud API double for the core backend's messaging bridge.
 */
export { type DoubleServer, type RecordedRequest } from './double-server';
export {
  startInfisicalDouble,
  type InfisicalDouble,
  type InfisicalDoubleOptions,
} from './infisical-double';
export { startGitlabDouble, type GitlabDouble, type TriggeredPipeline } from './gitlab-double';
export { startTelegramDouble, type TelegramDouble, type SentMessage } from './telegram-double';
export {
  startWhatsappDouble,
  type WebhookDelivery,
  type WhatsappDouble,
  type WhatsappDoubleOptions,
  type WhatsappFault,
  type WhatsappReply,
} from './whatsapp-double';
