import '@pelita/kit/instrument'; // first: tracing patches http, express and drivers as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createCoreBackend } from './service';

// Its third parameter holds test hooks, not the kit's context.
runService({
  name: 'core-backend',
  settings: settingsSchema,
  create: (settings, logger) => createCoreBackend(settings, logger),
});
