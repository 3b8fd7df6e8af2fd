import { AuditsController } from './controllers/audits.controller';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { CoreModule } from '@forensics/infra';
import { AnswersController } from './controllers/answers.controller';
import { CollectionsController } from './controllers/collections.controller';
import { EnhancementsController } from './controllers/enhancements.controller';
import { FeedbackController } from './controllers/feedback.controller';
import { HealthController } from './controllers/health.controller';
import { QuarantineController } from './controllers/quarantine.controller';
import { ReviewController } from './controllers/review.controller';
import { WidgetController } from './controllers/widget.controller';
import { WebhooksController } from './controllers/webhooks.controller';
import { AdminController } from './controllers/admin.controller';
import { SessionController } from './controllers/session.controller';
import { LoginThrottle } from './http/login-throttle';
import { RateLimitGuard, RateLimits } from './http/rate-limit';
import { ApiKeyGuard } from './http/api-key.guard';
import { Authenticator } from './http/authenticator';
import { FeedbackIntake } from './http/feedback-intake';
import { HttpDrain } from './http/http-drain';
import { ErrorsFilter } from './http/errors.filter';
import { MetricsController } from './metrics/metrics.controller';
import { DeadLettersController } from './controllers/dead-letters.controller';

/**
 * HTTP app: thin controllers, each endpoint calling one use case. `infrastructure` is the
 * process's one InfrastructureModule.forRoot(config) (shared when the worker runs in the same
 * process, e.g. `npm start`).
 */
@Module({})
export class ApiModule {
  static forRoot(infrastructure: DynamicModule): DynamicModule {
    return {
      module: ApiModule,
      imports: [infrastructure, CoreModule],
      controllers: [FeedbackController, AnswersController, EnhancementsController, QuarantineController, CollectionsController, HealthController, WidgetController, MetricsController, WebhooksController,
        AdminController, SessionController, ReviewController, DeadLettersController, AuditsController],
      providers: [
        Authenticator,
        FeedbackIntake,
        HttpDrain,
        LoginThrottle,
        RateLimits,
        RateLimitGuard,
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_FILTER, useClass: ErrorsFilter },
      ],
    };
  }
}
