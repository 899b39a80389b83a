import type { ResourceEntry } from '../types.js';

export const JSON_MIME = 'application/json';

export const jsonEntry = (uri: string, name: string, title: string, description: string): ResourceEntry => ({
  uri,
  name,
  title,
  description,
  mimeType: JSON_MIME,
});
