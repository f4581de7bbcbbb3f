/**
 * The policy an owner sets for its operator (the relayer) on chain, with the approval
 * (Engine.setOperator / setOperatorWithSig; docs/CONTRACTS.md "Operators"): the highest leverage
 * of the orders the operator opens, how far from the mark it may price and fill them, and what
 * its orders may cost the account beyond the mark plus fees over a rolling 24 h.
 */
export type OperatorPolicy = {
  /** the highest leverage of an order the operator opens (1 ..) */
  maxLeverage: number;
  /** bps of the mark; each market caps it at its own operatorBandBps (1 .. 10000) */
  bandBps: number;
  /** bps of the account's value per rolling 24 h (0 .. 10000) */
  budgetBps: number;
};

/**
 * The defaults the approval routes state (and sign unless the owner asks for others):
 * conservative, 10x at most, 1 % from the mark (each market's operator band caps it: 0.9 % on
 * the devnet), 1 % of the account's value per 24 h.
 */
export const DEFAULT_OPERATOR_POLICY: Readonly<OperatorPolicy> = Object.freeze({ maxLeverage: 10, bandBps: 100, budgetBps: 100 });

/** The bounds Engine.setOperator accepts for an approval (else it reverts InvalidParameters). */
export const OPERATOR_POLICY_LIMITS = {
  maxLeverage: { min: 1, max: 65_535 },
  bandBps: { min: 1, max: 10_000 },
  budgetBps: { min: 0, max: 10_000 },
} as const;

/** What each policy field means, for the request schemas of both surfaces (camelCase and /v1's snake_case). */
export const OPERATOR_POLICY_TEXT: Readonly<Record<keyof OperatorPolicy, string>> = {
  maxLeverage: "the highest leverage of an order the relayer opens for the owner",
  bandBps: "how far from the mark (bps) the relayer may price and fill the owner's orders; each market caps it at its operatorBandBps",
  budgetBps: "what the relayer's orders may cost beyond the mark plus fees, in bps of the account's value per rolling 24 h",
};
