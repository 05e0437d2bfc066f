// A node:test reporter: milliseconds per test file (the sum of its top-level tests and
// suites, which run one after another), printed once as a JSON object
// { "<absolute file path>": ms } when the run ends. Used by `scripts/test.mjs --save-durations`.
export default async function* durations(source) {
  const perFile = {};
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      perFile[event.data.file] = (perFile[event.data.file] ?? 0) + (event.data.details?.duration_ms ?? 0);
    }
  }
  yield `${JSON.stringify(perFile)}\n`;
}
