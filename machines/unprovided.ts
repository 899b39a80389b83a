/**
 * Stands for a delay or guard whose value is Sluice's, not the statechart's (a number of the contract,
 * a check of a secret): `src/runtime/machines.ts` provides it. A machine started without it fails at
 * once, naming what is missing.
 */
export const unprovided = (name: string) => (): never => {
  throw new Error(`${name} is not provided: start the machines of src/runtime/machines.ts`);
};
