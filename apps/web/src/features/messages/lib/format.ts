// The console's one format (lib/format-date.ts), under the name the messages feature imports.
export { formatDateTime } from '../../../lib/format-date.ts';
