import type { Token } from './ports/tokens';

/**
 * Each use case is a class with one `execute(command)` and one constructor argument: an object of
 * its dependencies (ports, settings, other use cases). Its static `inject` names the injection key
 * of every dependency, so the composition root (libs/infra's CoreModule) can build it, and a test
 * can build it by hand with fakes. Core stays free of any framework.
 */
export type InjectionKey<T> = Token<T> | (abstract new (...args: never[]) => T);
export type InjectMap<D> = { readonly [K in keyof D]-?: InjectionKey<D[K]> };

export interface UseCaseClass<D = never, U = unknown> {
  new (deps: D): U;
  readonly inject: InjectMap<D>;
}
