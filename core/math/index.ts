/** The contracts' formulas in exact bigint arithmetic (docs/CONTRACTS.md). Pure functions. */
export * from "./ints.js";
export * from "./price.js";
export * from "./funding.js";
export * from "./health.js";
export * from "./orders.js";
export * from "./ids.js";
export * from "./fillable.js";
