import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import type { Runtime } from '@forensics/infra';
import { CollectionsController } from './controllers/collections.controller';
import { FeedbackController } from './controllers/feedback.controller';
import { HealthController } from './controllers/health.controller';
import { QuarantineController } from './controllers/quarantine.controller';
import { ApiKeyGuard } from './http/api-key.guard';
import { ErrorsFilter } from './http/errors.filter';
import { RUNTIME } from './http/tokens';

/** HTTP app: thin controllers over the use cases; the runtime (adapters) is built outside and passed in. */
@Module({})
export class ApiModule {
  static register(runtime: Runtime): DynamicModule {
    return {
      module: ApiModule,
      controllers: [FeedbackController, QuarantineController, CollectionsController, HealthController],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: ErrorsFilter },
      ],
    };
  }
}
