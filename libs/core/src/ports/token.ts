/**
 * Injection tokens of the ports. Core stays framework-free: a token is a plain symbol that carries
 * the port's type, so the composition root (libs/infra, Nest) binds adapters to tokens and builds
 * each use case from its declared dependencies (see `UseCase` in ../use-case.ts).
 * (Its own file so that the ports declaring their token, e.g. repositories/review.port.ts, and
 * tokens.ts, which imports the ports' types, do not import each other.)
 */
export type Token<T> = symbol & { readonly __port?: T };
export const token = <T>(name: string): Token<T> => Symbol(name) as Token<T>;
