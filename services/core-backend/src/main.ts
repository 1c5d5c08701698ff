import '@pelita/kit/instrument'; // first: tracing patches http, express and drivers as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createCoreBackend } from './service';

runService({ name: 'core-backend', settings: settingsSchema, create: createCoreBackend });
