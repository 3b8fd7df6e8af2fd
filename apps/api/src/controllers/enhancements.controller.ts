import { Controller, Inject } from '@nestjs/common';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Runtime } from '@forensics/infra';
import { RUNTIME } from '../http/tokens';

/** Benign-text enhancements: list, delete, set a correct answer (routes being added). */
@ApiTags('enhancements')
@ApiSecurity('api-key')
@Controller('v1')
export class EnhancementsController {
  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {}
}
