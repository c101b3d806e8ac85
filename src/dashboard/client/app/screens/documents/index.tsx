export { DocumentsScreen } from './documents-screen.js';
export { UploadScreen } from './upload-screen.js';
