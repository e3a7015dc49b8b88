// A client generated from GET /api/openapi.json compiles: openapi-typescript turns the description into
// TypeScript types, and the TypeScript compiler (strict) checks them together with code that uses them
// the way an integration would — every operation by its operationId, request bodies, list answers and
// the error model. A description a generator cannot read, or names it cannot use, fails here.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { anonymous, startService, type TestService } from '../helpers/service.js';
import type { Json } from '../rules/fixtures.js';

/** Code an integration would write against the generated types. */
function usage(operationIds: string[]): string {
  return `import type { components, operations, paths } from './vigil-api.js';

type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;

// Every operation is reachable by its operationId.
export const OPERATIONS: Array<keyof operations> = ${JSON.stringify(operationIds)};

// A list answer has the list envelope; its items are rules.
type RuleList = JsonBody<operations['listRules']['responses'][200]>;
export function titles(list: RuleList): string[] {
  const pages: number = list.pages;
  return list.items.map((rule) => \`\${rule.title} (\${rule.status}, \${pages} pages)\`);
}

// A request body and a path parameter, as the generated types require them.
export const create: JsonBody<NonNullable<operations['createRule']['requestBody']>> = { yaml_content: 'title: x', deploy: false };
export const ruleId: operations['getRule']['parameters']['path']['id'] = '00000000-0000-4000-8000-000000000000';
export const triage: JsonBody<NonNullable<operations['bulkUpdateAlertStatus']['requestBody']>> = { ids: [ruleId], status: 'acknowledged' };

// The error model, the same for every error answer.
export const refused: components['schemas']['Error'] = { detail: 'Not enough permissions', status_code: 403 };
export const forbiddenHealth: JsonBody<operations['getHealth']['responses'][403]> = refused;

// Paths index the same operations.
export type Presets = JsonBody<paths['/api/field_mapping_presets']['get']['responses'][200]>['items'];
`;
}

describe('a client generated from the OpenAPI description', () => {
  let service: TestService;
  let doc: Json;
  let dir: string;

  before(async () => {
    service = await startService('pglite');
    doc = (await anonymous(service).get('/api/openapi.json')).data;
    dir = mkdtempSync(join(tmpdir(), 'vigil-client-'));
  });
  after(async () => {
    await service?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('openapi-typescript generates its types, and they compile (strict) with code using them', async () => {
    const generated = astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0]));
    assert.match(generated, /export interface operations/);
    const operationIds = Object.values<Json>(doc.paths).flatMap((item) => Object.values<Json>(item).map((op) => op.operationId as string));
    writeFileSync(join(dir, 'vigil-api.ts'), generated);
    writeFileSync(join(dir, 'use.ts'), usage(operationIds));

    const program = ts.createProgram([join(dir, 'use.ts'), join(dir, 'vigil-api.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      noUnusedLocals: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '';
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    assert.deepEqual(problems, []);
  });
});
