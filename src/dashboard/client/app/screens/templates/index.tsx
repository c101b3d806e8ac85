export { TemplateScreen } from './template-screen.js';
export { TemplatesScreen } from './templates-screen.js';
