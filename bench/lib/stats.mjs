export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

export const MB = 2 ** 20;
export const mb = (bytes) => (bytes / MB).toFixed(1);
export const signedMb = (bytes) => `${bytes >= 0 ? '+' : '−'}${mb(Math.abs(bytes))} MB`;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
