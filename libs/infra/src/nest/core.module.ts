import { Module, type Provider } from '@nestjs/common';
import { USE_CASES, type UseCaseClass } from '@forensics/core';

/**
 * Every use case as a provider, built from its own `static inject` map (core declares what each
 * needs; this module only wires). The API, the worker and the CLI import this same module.
 */
function provide(useCase: UseCaseClass<Record<string, unknown>, unknown>): Provider {
  const keys = Object.keys(useCase.inject);
  return {
    provide: useCase,
    useFactory: (...deps: unknown[]) => new useCase(Object.fromEntries(keys.map((k, i) => [k, deps[i]]))),
    inject: keys.map((k) => useCase.inject[k] as symbol | Function),
  };
}

const providers = (USE_CASES as readonly unknown[]).map((u) => provide(u as UseCaseClass<Record<string, unknown>, unknown>));

@Module({ providers, exports: providers.map((p) => (p as { provide: Function }).provide) })
export class CoreModule {}
