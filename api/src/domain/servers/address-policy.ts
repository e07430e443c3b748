/**
 * The SSRF rule: an upstream server must be reached over https at a public address. Hosts are
 * checked when a URL is saved and every resolved address again before connecting (and after
 * each redirect); this module only judges text, it resolves nothing.
 */

export type AddressClass =
  | "public"
  | "private"
  | "loopback"
  | "link-local"
  | "cgnat"
  | "metadata"
  | "unique-local"
  | "ipv4-mapped"
  | "multicast"
  | "unspecified"
  | "reserved"
  | "invalid";

export interface AddressPolicyOptions {
  /** Development only: lets upstream servers run on this machine, over plain http too. */
  allowLoopback: boolean;
}

const DESCRIPTIONS: Record<Exclude<AddressClass, "public" | "invalid">, string> = {
  private: "a private network address",
  loopback: "a loopback address",
  "link-local": "a link-local address",
  cgnat: "a carrier-grade NAT (shared) address",
  metadata: "a cloud metadata address",
  "unique-local": "a unique local (private IPv6) address",
  "ipv4-mapped": "an IPv4-mapped IPv6 address",
  multicast: "a multicast address",
  unspecified: "the unspecified address",
  reserved: "a reserved, documentation or special-purpose address",
};

export function classifyAddress(ip: string): AddressClass {
  return analyze(ip).kind;
}

export function upstreamAddressProblem(ip: string, options: AddressPolicyOptions): string | null {
  const { kind, nat64Of } = analyze(ip);
  if (kind === "public") return null;
  // A NAT64 address of 127.0.0.1 is not this machine; only plain loopback is let through.
  if (kind === "loopback" && options.allowLoopback && nat64Of === undefined) return null;
  if (kind === "invalid") return `resolves to "${ip}", which is not a valid IP address`;
  const what = nat64Of === undefined ? DESCRIPTIONS[kind] : `a NAT64 address of ${nat64Of}, ${DESCRIPTIONS[kind]}`;
  return `resolves to ${ip}, ${what}: upstream servers must be public`;
}

/**
 * The first check of an upstream URL, before any DNS lookup: https, no credentials in it, and a
 * host that is not already known to be refused (an IP literal or `localhost`).
 */
export function upstreamUrlProblem(
  url: string,
  options: AddressPolicyOptions = { allowLoopback: false },
): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a valid URL; use https://host/path";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return `uses ${parsed.protocol}; upstream servers must be reached over https://`;
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return "contains credentials; remove them from the URL and send them as a header instead";
  }
  // WHATWG parsing has already turned 0x7f.1 and 2130706433 into 127.0.0.1.
  const host = parsed.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "") return "has no host; use https://host/path";
  const isLoopbackName = host === "localhost" || host.endsWith(".localhost");
  const literal = analyze(host);
  const isLiteral = literal.kind !== "invalid";
  const isLoopback = isLoopbackName || (literal.kind === "loopback" && literal.nat64Of === undefined);

  if (isLoopback && options.allowLoopback) return null;
  // Servers on this machine are what a local user most often adds: say which switch allows them.
  if (isLoopback) {
    const scheme = parsed.protocol === "http:" ? "uses http:// and " : "";
    return (
      `${scheme}points to ${host}, a loopback ${isLoopbackName ? "name" : "address"}, and the loopback exception is off: ` +
      "for a server on this machine, start Loadout with LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1 (local use only); otherwise use the server's public https:// URL"
    );
  }
  if (parsed.protocol === "http:") {
    return "uses http://; upstream servers must be reached over https://";
  }
  if (isLoopbackName) return `points to ${host}, a loopback name: upstream servers must be public`;
  if (isLiteral) return upstreamAddressProblem(host, options);
  return null;
}

interface Analysis {
  kind: AddressClass;
  /** The IPv4 address a NAT64 address (64:ff9b::/96) stands for, when it was judged by it. */
  nat64Of?: string;
}

function analyze(ip: string): Analysis {
  const v4 = parseIPv4(ip);
  if (v4) return { kind: classifyIPv4(v4) };
  const v6 = parseIPv6(ip);
  if (v6) return classifyIPv6(v6);
  return { kind: "invalid" };
}

type Octets = [number, number, number, number];

/** Dotted decimal only: leading zeros (octal to some resolvers) and short forms are invalid. */
function parseIPv4(text: string): Octets | null {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!match) return null;
  const octets: number[] = [];
  for (const part of match.slice(1)) {
    if (part.length > 1 && part.startsWith("0")) return null;
    const value = Number(part);
    if (value > 255) return null;
    octets.push(value);
  }
  const [a = 0, b = 0, c = 0, d = 0] = octets;
  return [a, b, c, d];
}

/** Metadata services that answer on otherwise ordinary addresses. */
const METADATA_V4 = new Set([
  "169.254.169.254", // AWS, GCP, Azure, OCI, DigitalOcean…
  "169.254.170.2", // AWS ECS task credentials
  "100.100.100.200", // Alibaba Cloud
  "168.63.129.16", // Azure WireServer: public-looking, reachable only from inside Azure
]);

function classifyIPv4([a, b, c, d]: Octets): AddressClass {
  if (METADATA_V4.has(`${a}.${b}.${c}.${d}`)) return "metadata";
  if (a === 0) return a + b + c + d === 0 ? "unspecified" : "reserved";
  if (a === 10) return "private";
  if (a === 100 && b >= 64 && b <= 127) return "cgnat";
  if (a === 127) return "loopback";
  if (a === 169 && b === 254) return "link-local";
  if (a === 172 && b >= 16 && b <= 31) return "private";
  if (a === 192 && b === 168) return "private";
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return "reserved"; // protocol assignments, TEST-NET-1
  if (a === 192 && b === 88 && c === 99) return "reserved"; // 6to4 relay anycast
  if (a === 198 && (b === 18 || b === 19)) return "reserved"; // benchmarking
  if (a === 198 && b === 51 && c === 100) return "reserved"; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return "reserved"; // TEST-NET-3
  if (a >= 224 && a <= 239) return "multicast";
  if (a >= 240) return "reserved"; // includes 255.255.255.255
  return "public";
}

type Groups = number[]; // eight 16-bit groups

/** RFC 4291 text: `::` once, 1–4 hex digits a group, an optional dotted IPv4 tail, an optional `%zone`. */
function parseIPv6(text: string): Groups | null {
  const percent = text.indexOf("%");
  let address = text;
  if (percent !== -1) {
    if (!/^[A-Za-z0-9_.~-]+$/.test(text.slice(percent + 1))) return null;
    address = text.slice(0, percent);
  }
  if (!address.includes(":")) return null;

  let tail: number[] = [];
  const lastColon = address.lastIndexOf(":");
  const last = address.slice(lastColon + 1);
  if (last.includes(".")) {
    const v4 = parseIPv4(last);
    if (!v4) return null;
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]];
    address = address.slice(0, lastColon + 1);
    if (!address.endsWith("::")) address = address.slice(0, -1);
  }

  const halves = address.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const groups: number[] = [];
    for (const group of part.split(":")) {
      if (!/^[0-9A-Fa-f]{1,4}$/.test(group)) return null;
      groups.push(Number.parseInt(group, 16));
    }
    return groups;
  };
  const head = parse(halves[0] ?? "");
  const rest = halves.length === 2 ? parse(halves[1] ?? "") : [];
  if (!head || !rest) return null;
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 2 ? explicit > 7 : explicit !== 8) return null;
  return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
}

function classifyIPv6(g: Groups): Analysis {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const firstFive = g0 | g1 | g2 | g3 | g4;
  if (firstFive === 0 && g5 === 0 && g6 === 0) {
    if (g7 === 0) return { kind: "unspecified" };
    if (g7 === 1) return { kind: "loopback" };
  }
  // ::ffff:a.b.c.d reaches the IPv4 host on dual-stack sockets; refused whatever it embeds.
  if (firstFive === 0 && g5 === 0xffff) return { kind: "ipv4-mapped" };
  if (g0 === 0x64 && g1 === 0xff9b && (g2 | g3 | g4 | g5) === 0) {
    const v4: Octets = [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff];
    return { kind: classifyIPv4(v4), nat64Of: v4.join(".") };
  }
  if (g0 === 0xfd00 && g1 === 0x0ec2 && (g2 | g3 | g4 | g5 | g6) === 0 && g7 === 0x254) {
    return { kind: "metadata" }; // AWS IMDS over IPv6
  }
  if ((g0 & 0xfe00) === 0xfc00) return { kind: "unique-local" };
  if ((g0 & 0xffc0) === 0xfe80) return { kind: "link-local" };
  if ((g0 & 0xffc0) === 0xfec0) return { kind: "private" }; // deprecated site-local
  if ((g0 & 0xff00) === 0xff00) return { kind: "multicast" };
  // Outside 2000::/3 nothing is globally routed: IPv4-compatible, discard-only, 64:ff9b:1::/48…
  if ((g0 & 0xe000) !== 0x2000) return { kind: "reserved" };
  if (g0 === 0x2001 && g1 < 0x200) return { kind: "reserved" }; // 2001::/23 protocol assignments, Teredo
  if (g0 === 0x2001 && g1 === 0x0db8) return { kind: "reserved" }; // documentation
  if (g0 === 0x2002) return { kind: "reserved" }; // 6to4, deprecated, embeds any IPv4
  if ((g0 & 0xfff0) === 0x3ff0) return { kind: "reserved" }; // 3fff::/20 documentation
  return { kind: "public" };
}
