import { describe, expect, it } from "vitest";
import { retryingTakenNonce } from "../../scripts/lib/clients.js";

/** A write that fails with `errors` in turn, then answers "0xhash"; counts its attempts. */
function writer(errors: Error[]) {
  let attempts = 0;
  const write = async () => {
    const e = errors[attempts++];
    if (e) throw e;
    return "0xhash";
  };
  return { write, attempts: () => attempts };
}

describe("retryingTakenNonce", () => {
  it("sends again while another process took the nonce, then answers", async () => {
    const w = writer([new Error("nonce too low"), new Error("Nonce too low: next nonce 7, tx nonce 6")]);
    expect(await retryingTakenNonce(w.write)).toBe("0xhash");
    expect(w.attempts()).toBe(3);
  });

  it("throws any other error at once", async () => {
    const w = writer([new Error("execution reverted: Unauthorized")]);
    await expect(retryingTakenNonce(w.write)).rejects.toThrow("Unauthorized");
    expect(w.attempts()).toBe(1);
  });

  it("throws the last refusal after its tries", async () => {
    const w = writer(Array.from({ length: 5 }, (_, i) => new Error(`nonce too low (${i + 1})`)));
    await expect(retryingTakenNonce(w.write, 3)).rejects.toThrow("nonce too low (3)");
    expect(w.attempts()).toBe(3);
  });
});
