import '@pelita/kit/instrument'; // first: tracing patches http and express as they load
import { runService } from '@pelita/kit';
import { settingsSchema } from './config';
import { createOfficeConverterService } from './service';

runService({
  name: 'office-converter',
  settings: settingsSchema,
  create: createOfficeConverterService,
});
