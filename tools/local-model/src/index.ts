/** The local model as a library (tests start its server in-process). */
export { createChatServer, type ChatServerOptions } from './chat-server';
export { loadModel, type LoadedModel } from './llama';
export { startLocalModel, type LocalModelProcess } from './process';
