/**
 * The simulated CRI runtime (`--runtime sim`). See runtime.ts for the model,
 * behavior.ts for configurable delays/outcomes and shell.ts for the commands it
 * interprets.
 */
export { SimRuntime, SIM_RUNTIME_VERSION, type SimRuntimeOptions, type SimClock, type SimExecSession } from './runtime.js';
export { BehaviorAnnotation, builtinImageRules, resolveBehavior, type SimBehavior, type SimContainerBehavior, type SimImageRule, type SimPullBehavior } from './behavior.js';
export { rfc3339Nano } from './logs.js';
