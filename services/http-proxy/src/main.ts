import '@pelita/kit/instrument'; // first: tracing patches http and express as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createHttpProxyService } from './service';

// Its third parameter holds test hooks, not the kit's context.
runService({
  name: 'http-proxy',
  settings: settingsSchema,
  create: (settings, logger) => createHttpProxyService(settings, logger),
});
