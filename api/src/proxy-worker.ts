import { proxyWorker } from "@loadout/workers/proxy-worker";
import { upstreamAddressProblem, upstreamUrlProblem } from "./domain/servers/address-policy";

/**
 * The proxy Worker's entry (infra/wrangler.proxy.jsonc): workers/src/proxy-worker.ts with the SSRF
 * rule of the api's domain, the same rule the Node host's guard applies.
 */
const proxy = proxyWorker({
  urlProblem: (url, allowLoopback) => upstreamUrlProblem(url, { allowLoopback }),
  addressProblem: (ip, allowLoopback) => upstreamAddressProblem(ip, { allowLoopback }),
});

export const UpstreamSessions = proxy.UpstreamSessions;
export const ClientMailbox = proxy.ClientMailbox;
export const UpstreamProxy = proxy.UpstreamProxyEntrypoint;
export default { fetch: proxy.fetch };
