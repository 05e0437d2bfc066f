import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newNotFound, newInvalid } from '../../apimachinery/errors.js';
import { isPrettyPrint } from './negotiate.js';
import { writeError, writeRawJSON } from './respond.js';
import type { ResponseWriter } from './types.js';

function writer(pretty?: boolean): ResponseWriter & { status: number; headers: Record<string, string | string[]>; body: string } {
  const w = {
    status: 0,
    headers: {} as Record<string, string | string[]>,
    body: '',
    closed: false,
    pretty,
    writeHead(s: number, h: Record<string, string | string[]>) {
      w.status = s;
      w.headers = h;
    },
    write(c: string | Buffer) {
      w.body += c.toString();
    },
    end(c?: string | Buffer) {
      if (c !== undefined) w.body += c.toString();
      w.closed = true;
    },
    onClose() {},
  };
  return w;
}

test("JSON bodies end with a newline, as Go's json.Encoder writes them", () => {
  const w = writer();
  writeRawJSON(w, 200, '{"kind":"ConfigMap"}');
  assert.equal(w.body, '{"kind":"ConfigMap"}\n');
  assert.equal(w.headers['Content-Length'], String(w.body.length));
});

test('pretty output is indented by two spaces, without the newline (json.MarshalIndent)', () => {
  const w = writer(true);
  writeRawJSON(w, 200, '{"kind":"ConfigMap","apiVersion":"v1","metadata":{},"data":{"a":"b"},"list":[]}');
  assert.equal(w.body, '{\n  "kind": "ConfigMap",\n  "apiVersion": "v1",\n  "metadata": {},\n  "data": {\n    "a": "b"\n  },\n  "list": []\n}');
});

test('a Status is written in metav1.Status field order: …"reason","details","code"}\\n', () => {
  const w = writer();
  writeError(w, newNotFound({ group: 'apps', resource: 'deployments' }, 'web'));
  assert.equal(
    w.body,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}\n',
  );
  const inv = writer();
  writeError(inv, newInvalid({ group: '', kind: 'ConfigMap' }, 'c', [{ type: 'FieldValueRequired', field: 'data', detail: '' }]));
  const text = inv.body;
  assert.ok(text.indexOf('"reason":"Invalid"') < text.indexOf('"details"') && text.indexOf('"details"') < text.indexOf('"code":422'), text);
  assert.match(text, /"causes":\[\{"reason":"FieldValueRequired","message":"Required value","field":"data"\}\]/);
});

test('isPrettyPrint: the pretty parameter (Go ParseBool), else curl, Wget and browsers', () => {
  assert.equal(isPrettyPrint('pretty=true', undefined), true);
  assert.equal(isPrettyPrint('limit=5&pretty=1', 'kubectl/v1.32.4'), true);
  assert.equal(isPrettyPrint('pretty=false', 'curl/8.5.0'), false, 'the parameter wins over the User-Agent');
  assert.equal(isPrettyPrint('pretty=yes', 'curl/8.5.0'), false, 'a value ParseBool rejects is false');
  assert.equal(isPrettyPrint(undefined, 'curl/8.5.0'), true);
  assert.equal(isPrettyPrint('', 'Wget/1.21'), true);
  assert.equal(isPrettyPrint(undefined, 'Mozilla/5.0 (X11)'), true);
  assert.equal(isPrettyPrint('pretty=', 'kubectl/v1.32.4 (linux/amd64)'), false);
  assert.equal(isPrettyPrint(undefined, undefined), false);
});
