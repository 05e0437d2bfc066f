import { compile } from './src/cel/index.js';
const vars = [{ name: 'object' }, { name: 'x' }];
for (const e of ['object.spec.replicas <= 5', 'object.spec.', 'foo + 1', '1 + "a"', '"abc".matches("[")', '"abc".matches("^a")', '"ABC".matches("(?i)abc")', 'object.spec.nope', '[1,2].all(i, "ab".matches("b"))', 'ip("1.2.3.4").family()', 'cidr("10.0.0.0/8").containsIP("10.1.2.3")', 'quantity("1Gi").isGreaterThan(quantity("1M"))', '[3,1].isSorted()', '[1,2,3].sum()', 'sets.contains([1,2],[2])', '"%s-%d".format(["a", 3])', 'ip.isCanonical("::1")', '"abc".find("b.")', 'object.spec.replicas / 0', '[1,2,3].map(x, [1,2,3].map(y, [1,2,3,4,5,6,7,8,9,10].map(z, z)))']) {
  const r = compile(e, { variables: vars });
  if (!r.program) { console.log(e, '\n  COMPILE', r.error.detail); continue; }
  const v = r.program.evaluate({ object: { spec: { replicas: 6 } }, x: 1 });
  console.log(e, '=>', v.error ? 'ERR ' + v.error.detail : v.value, 'cost', v.cost, r.program.outputType);
}
const big = compile('[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, true))))', { variables: [] });
console.log(big.program!.evaluate({}, { costLimit: 1000 }));
