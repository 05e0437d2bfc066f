/**
 * The Kubernetes CEL base environment (upstream `environment.MustBaseEnvSet` at 1.32):
 * homogeneous aggregate literals, optional types, cross-type numeric comparisons (the
 * evaluator's own behaviour), the string extension, and the Kubernetes libraries:
 * lists, sets, regex, IP/CIDR, quantity, URLs, format, authorizer. Built once; each
 * variable set gets its own clone (see {@link environmentFor}).
 *
 * @see https://github.com/kubernetes/kubernetes/blob/v1.32.0/staging/src/k8s.io/apiserver/pkg/cel/environment/base.go
 */
import { Environment } from '@marcbachmann/cel-js';
import { instrumentEnvironment } from './cost.js';
import { registerAuthz } from './library/authz.js';
import { registerComprehensions } from './library/comprehensions.js';
import { registerFormat } from './library/format.js';
import { registerLists } from './library/lists.js';
import { registerNetwork } from './library/network.js';
import { registerOptionals } from './library/optionals.js';
import { registerQuantity } from './library/quantity.js';
import { registerRegex } from './library/regex.js';
import { registerStrings } from './library/strings.js';
import { registerURLs } from './library/urls.js';

/** upstream celconfig.PerCallLimit: the runtime cost limit of one expression evaluation. */
export const PER_CALL_LIMIT = 1_000_000;
/** upstream celconfig.RuntimeCELCostBudget: the runtime cost budget of one validation (all its expressions). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** upstream celconfig.MaxRequestSizeBytes: the size of the largest object CEL may see. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
/** upstream celconfig.MaxEvaluatedMessageExpressionSizeBytes: longest messageExpression result kept. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

/** A library: registers its types, constants and functions on an environment. */
export type CelLibrary = (env: Environment) => void;

/** The libraries of the base environment, in registration order. */
const LIBRARIES: CelLibrary[] = [
  registerStrings,
  registerRegex,
  registerLists,
  registerNetwork,
  registerQuantity,
  registerURLs,
  registerFormat,
  registerAuthz,
  registerOptionals,
  registerComprehensions,
];

/** Extra libraries registered by other modules before the first environment is built (e.g. the authorizer). */
const extraLibraries: CelLibrary[] = [];

let base: Environment | undefined;

/**
 * Adds a library to the base environment. Must be called before the first
 * {@link environmentFor}.
 * @throws Error when the base environment has been built already
 */
export function addLibrary(lib: CelLibrary): void {
  if (base !== undefined) throw new Error('cel: the base environment is built; add libraries before the first compile');
  extraLibraries.push(lib);
}

/** The base environment (no variables), built on first use. */
export function baseEnvironment(): Environment {
  if (base === undefined) {
    const env = new Environment({
      unlistedVariablesAreDyn: false,
      homogeneousAggregateLiterals: true,
      enableOptionalTypes: true,
      limits: { maxAstNodes: 100_000, maxDepth: 250, maxListElements: 100_000, maxMapEntries: 100_000, maxCallArguments: 32 },
    });
    for (const lib of [...LIBRARIES, ...extraLibraries]) lib(env);
    base = env;
  }
  return base;
}

/** A variable declaration: a name and a CEL type (`dyn`, `map<string, dyn>`, a registered type…). */
export interface VariableDecl {
  name: string;
  type?: string;
}

const envs = new Map<string, Environment>();

/** The environment with exactly `vars` declared (cached per variable set), cost-instrumented. */
export function environmentFor(vars: readonly VariableDecl[]): Environment {
  const key = vars.map((v) => `${v.name}:${v.type ?? 'dyn'}`).join(',');
  let env = envs.get(key);
  if (env === undefined) {
    env = baseEnvironment().clone();
    for (const v of vars) env.registerVariable(v.name, v.type ?? 'dyn');
    instrumentEnvironment(env);
    envs.set(key, env);
  }
  return env;
}
