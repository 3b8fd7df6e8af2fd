/** DI tokens (explicit @Inject everywhere: the apps run under tsx/esbuild, which emits no decorator metadata). */
export const RUNTIME = Symbol('RUNTIME');
