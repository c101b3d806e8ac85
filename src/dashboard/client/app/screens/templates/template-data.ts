import { api, ok } from '../../api/client.js';
import type { paths } from '../../api/schema.js';

export type Template = paths['/api/templates/{id}']['get']['responses'][200]['content']['application/json']['template'];
export type TemplateChange = NonNullable<paths['/api/templates/{id}']['patch']['requestBody']>['content']['application/json'];

/** Cache keys: every templates query starts with `templates` (the Upload screen's list too), so a change invalidates TEMPLATES. */
export const TEMPLATES = 'templates';
export const TEMPLATES_KEY = `${TEMPLATES}:list`;
export const templateKey = (id: number) => `templates:one:${id}`;

export const fetchTemplates = async () => (await ok(api.GET('/api/templates'))).templates;
export const fetchTemplate = async (id: number) => (await ok(api.GET('/api/templates/{id}', { params: { path: { id } } }))).template;
