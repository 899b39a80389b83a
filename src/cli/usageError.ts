/** A mistake on the command line: printed as one line, exit status 2. */
export class UsageError extends Error {}
