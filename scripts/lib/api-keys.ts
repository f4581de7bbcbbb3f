/**
 * API keys of the gateway for local wallets, through its admin endpoint (loopback,
 * `X-Admin-Token`). The gateway owns the key store; nothing here opens its database.
 */
import type { Address } from "viem";

export async function createApiKey(gatewayUrl: string, adminToken: string, wallet: Address, label = "demo"): Promise<string> {
  const res = await fetch(`${gatewayUrl}/admin/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-admin-token": adminToken },
    body: JSON.stringify({ wallet, label }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => null)) as { success?: boolean; data?: Record<string, unknown> } | null;
  const data = body?.data ?? {};
  const key = (data.api_key ?? data.apiKey ?? data.key) as string | undefined;
  if (!res.ok || !key) throw new Error(`gateway admin: creating a key for ${wallet} failed (HTTP ${res.status}): ${JSON.stringify(body)}`);
  return key;
}
