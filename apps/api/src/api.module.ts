import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import type { Runtime } from '@forensics/infra';
import { AnswersController } from './controllers/answers.controller';
import { CollectionsController } from './controllers/collections.controller';
import { EnhancementsController } from './controllers/enhancements.controller';
import { FeedbackController } from './controllers/feedback.controller';
import { HealthController } from './controllers/health.controller';
import { QuarantineController } from './controllers/quarantine.controller';
import { WidgetController } from './controllers/widget.controller';
import { ApiKeyGuard } from './http/api-key.guard';
import { ErrorsFilter } from './http/errors.filter';
import { RUNTIME } from './http/tokens';

/** HTTP app: thin controllers over the use cases; the runtime (adapters) is built outside and passed in. */
@Module({})
export class ApiModule {
  static register(runtime: Runtime): DynamicModule {
    return {
      module: ApiModule,
      controllers: [FeedbackController, AnswersController, EnhancementsController, QuarantineController, CollectionsController, HealthController, WidgetController],
      providers: [
        { provide: RUNTIME, useValue: runtime },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: ErrorsFilter },
      ],
    };
  }
}
