/** The contracts' formulas in exact bigint arithmetic (docs/CONTRACTS.md). Pure functions. */
export * from "./ints";
export * from "./price";
export * from "./funding";
export * from "./health";
export * from "./orders";
export * from "./ids";
