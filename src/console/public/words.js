// The words the console shows for the server's values, where more than one screen needs them.

export const LEVEL_LABELS = { readOnly: 'Read only', readWrite: 'Read and write', fullAccess: 'Full access' };

export const labelOf = (labels, value) => labels[value] ?? String(value ?? '—');
export const expiryLabel = (days) => (days === null || days === undefined ? 'Never' : days === 1 ? '1 day' : `${days} days`);
export const expiryValue = (days) => (days === null || days === undefined ? 'never' : String(days));
export const parseExpiry = (value) => (value === 'never' ? null : Number(value));
