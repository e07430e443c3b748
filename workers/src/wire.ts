import { UpstreamFailed, UpstreamRpcError, UpstreamUnauthorized, UpstreamUnavailable } from "./outcomes";

/**
 * An upstream outcome as it crosses Workers RPC. RPC keeps an error's message but not its class or
 * fields, while the api tells a refused handshake, a refusal of credentials, an upstream's JSON-RPC
 * error and a lost answer apart: each travels as data and is thrown again as its class.
 */
export type WireError =
  | { kind: "unavailable"; message: string }
  | { kind: "unauthorized"; message: string; status: 401 | 403; challenge: string | null }
  | { kind: "rpc"; message: string; code: number; data?: unknown }
  | { kind: "failed"; message: string }
  | { kind: "internal"; message: string };

export type Wired<T> = { ok: T } | { error: WireError };

/** An error as data (never its stack). */
export function toWire(error: unknown): WireError {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 1000);
  if (error instanceof UpstreamUnauthorized)
    return { kind: "unauthorized", message, status: error.status, challenge: error.challenge };
  if (error instanceof UpstreamUnavailable) return { kind: "unavailable", message };
  if (error instanceof UpstreamRpcError)
    return { kind: "rpc", message, code: error.code, ...(error.data !== undefined ? { data: error.data } : {}) };
  if (error instanceof UpstreamFailed) return { kind: "failed", message };
  return { kind: "internal", message };
}

/** The error a WireError stands for, of the class the pool threw. */
export function fromWire(error: WireError): Error {
  switch (error.kind) {
    case "unauthorized":
      return new UpstreamUnauthorized(error.message, error.status, error.challenge);
    case "unavailable":
      return new UpstreamUnavailable(error.message);
    case "rpc":
      return new UpstreamRpcError(error.code, error.message, error.data);
    case "failed":
      return new UpstreamFailed(error.message);
    default:
      return new Error(`The upstream proxy failed: ${error.message}`);
  }
}

/** Runs work and hands back its value or its error as data. */
export async function wired<T>(work: () => Promise<T>): Promise<Wired<T>> {
  try {
    return { ok: await work() };
  } catch (error) {
    return { error: toWire(error) };
  }
}

/** The value, or the error thrown again. */
export function unwired<T>(answer: Wired<T>): T {
  if ("error" in answer) throw fromWire(answer.error);
  return answer.ok;
}
