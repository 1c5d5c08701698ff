/** @pelita/vendor-doubles: Infisical, GitLab and Telegram Bot API doubles for the license service's tests. */
export { type DoubleServer, type RecordedRequest } from './double-server';
export {
  startInfisicalDouble,
  type InfisicalDouble,
  type InfisicalDoubleOptions,
} from './infisical-double';
export { startGitlabDouble, type GitlabDouble, type TriggeredPipeline } from './gitlab-double';
export { startTelegramDouble, type TelegramDouble, type SentMessage } from './telegram-double';
