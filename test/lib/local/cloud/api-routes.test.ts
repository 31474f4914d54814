import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_ROUTES } from '../../../../lib/infra/api.ts';
import { apiRoutesFromTemplate } from '../../../../lib/local/cloud/api-routes.ts';
import { synthesizeTemplate } from '../../../../lib/local/cloud/template.ts';

test('the local gateway serves exactly the routes the synthesized stack deploys', () => {
  const routes = apiRoutesFromTemplate(synthesizeTemplate());
  const expected = API_ROUTES.map((r) => ({ method: r.method, path: r.path })).sort(
    (a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
  );
  assert.deepEqual(routes, expected);
});
